package algo_test

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/internal/algo"
)

// The tests in this file check each algorithm against a model written from
// its definition alone: a list of the admitted requests, the rule that
// says whether a cost fits at an instant, and brute-force searches for
// Remaining, ResetAfter and RetryAfter. They run on a clock that never
// goes back (the clock steps have tests of their own).

// admitted is one request a model admitted: its instant and cost.
type admitted struct{ at, cost int64 }

// model is the definition of one algorithm over the admitted requests.
type model struct {
	limit, window int64
	log           []admitted
	// usage returns the units that count at t, multiplied by window (the
	// sliding counter's estimate is a fraction).
	usage func(m *model, t int64) int64
}

// floorStart is the start of the epoch-aligned window of length w holding
// t, by floor division.
func floorStart(t, w int64) int64 {
	q := t / w
	if t%w != 0 && t < 0 {
		q--
	}
	return q * w
}

// sum returns the units admitted in [from, to).
func (m *model) sum(from, to int64) int64 {
	var n int64
	for _, a := range m.log {
		if a.at >= from && a.at < to {
			n += a.cost
		}
	}
	return n
}

func fixedUsage(m *model, t int64) int64 {
	s := floorStart(t, m.window)
	return m.sum(s, s+m.window) * m.window
}

func slidingUsage(m *model, t int64) int64 {
	s := floorStart(t, m.window)
	prev, curr := m.sum(s-m.window, s), m.sum(s, s+m.window)
	return prev*(m.window-(t-s)) + curr*m.window
}

func logUsage(m *model, t int64) int64 {
	return m.sum(t-m.window+1, math.MaxInt64) * m.window
}

// emptyStart is the Start of an empty counter state at now: the zero
// value's, except before the epoch, where the zero value would be a state
// in the future (stores never see such times; the tests use them to cover
// the floor division).
func emptyStart(now, window int64) int64 {
	if now < 0 {
		return floorStart(now, window)
	}
	return 0
}

func (m *model) fits(t, cost int64) bool {
	return m.usage(m, t)+cost*m.window <= m.limit*m.window
}

// want is what the algorithm must report for a request of cost at now,
// given the requests admitted so far; charge says whether the report is
// taken after admitting it (Take) or before (Eval).
func (m *model) want(now, cost int64, charge bool, at int64) core.PolicyState {
	ps := core.PolicyState{Allowed: m.fits(now, cost)}
	if ps.Allowed && charge {
		m.log = append(m.log, admitted{at, cost})
	}
	for u := m.limit; u > 0; u-- {
		if m.fits(now, u) {
			ps.Remaining = u
			break
		}
	}
	for d := int64(0); m.usage(m, now+d) > 0; d++ {
		ps.ResetAfter = time.Duration(d+1) * time.Millisecond
	}
	if !ps.Allowed && cost <= m.limit {
		d := int64(1)
		for !m.fits(now+d, cost) {
			d++
		}
		ps.RetryAfter = time.Duration(d) * time.Millisecond
	}
	return ps
}

// modelSteps runs step over random request sequences for several limits
// and windows, with times before the epoch included, on a clock that
// often lands on window boundaries.
func modelSteps(t *testing.T, usage func(*model, int64) int64, step func(m *model, now, at, cost int64)) {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, 4))
	for _, window := range []int64{1, 5, 7, 60} {
		for _, limit := range []int64{1, 3, 10} {
			for _, origin := range []int64{-4 * window, -window - 3, 0, 1_700_000_000_000} {
				m := &model{limit: limit, window: window, usage: usage}
				now := origin
				for range 150 {
					now += rng.Int64N(window/2 + 2)
					cost := 1 + rng.Int64N(limit+1) // above the limit at times
					at := now
					if rng.IntN(4) == 0 {
						at++ // an instant between milliseconds, rounded up
					}
					step(m, now, at, cost)
				}
			}
		}
	}
}

// check compares a report with the model's, ignoring RetryAfter's value
// for a cost above the limit (no wait admits it) beyond its being positive.
func check(t *testing.T, want, got core.PolicyState, cost, limit int64, msgAndArgs ...any) {
	t.Helper()
	if cost > limit {
		require.False(t, got.Allowed, msgAndArgs...)
		require.Positive(t, got.RetryAfter, msgAndArgs...)
		got.RetryAfter = 0
	}
	require.Equal(t, want, got, msgAndArgs...)
}

func TestFixedWindowMatchesModel(t *testing.T) {
	var s algo.FixedWindowState
	modelSteps(t, fixedUsage, func(m *model, now, _, cost int64) {
		if len(m.log) == 0 {
			s = algo.FixedWindowState{Start: emptyStart(now, m.window)}
		}
		_, ps := s.Eval(now, m.limit, m.window, cost)
		check(t, m.want(now, cost, false, now), ps, cost, m.limit, "eval %+v now %d cost %d", s, now, cost)
		var got core.PolicyState
		s, got = s.Take(now, m.limit, m.window, cost)
		check(t, m.want(now, cost, true, now), got, cost, m.limit, "take now %d cost %d", now, cost)
	})
}

func TestSlidingWindowMatchesModel(t *testing.T) {
	var s algo.SlidingWindowState
	modelSteps(t, slidingUsage, func(m *model, now, _, cost int64) {
		if len(m.log) == 0 {
			s = algo.SlidingWindowState{Start: emptyStart(now, m.window)}
		}
		_, ps := s.Eval(now, m.limit, m.window, cost)
		check(t, m.want(now, cost, false, now), ps, cost, m.limit, "eval %+v now %d cost %d", s, now, cost)
		var got core.PolicyState
		s, got = s.Take(now, m.limit, m.window, cost)
		check(t, m.want(now, cost, true, now), got, cost, m.limit, "take now %d cost %d", now, cost)
	})
}

func TestSlidingLogMatchesModel(t *testing.T) {
	var l *algo.SlidingLogState
	modelSteps(t, logUsage, func(m *model, now, at, cost int64) {
		if len(m.log) == 0 {
			l = new(algo.SlidingLogState)
		}
		if n := len(m.log); n > 0 {
			at = max(at, m.log[n-1].at) // the log stays sorted
		}
		check(t, m.want(now, cost, false, at), l.Eval(now, at, m.limit, m.window, cost), cost, m.limit, "eval now %d cost %d", now, cost)
		check(t, m.want(now, cost, true, at), l.Take(now, at, m.limit, m.window, cost), cost, m.limit, "take now %d cost %d", now, cost)
	})
}
