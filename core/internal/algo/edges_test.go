package algo_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/internal/algo"
)

const ms = time.Millisecond

// A fixed window a little in the future (the clock stepped back by less
// than a window) still counts, with its waits measured from now; one more
// than a window in the future moves, count kept, to the window holding now.
func TestFixedWindowClockStepBack(t *testing.T) {
	const lim, w = 3, 100
	s := algo.FixedWindowState{Start: 1000, Count: 2}

	_, ps := s.Eval(950, lim, w, 2)
	assert.Equal(t, core.PolicyState{Remaining: 1, ResetAfter: 150 * ms, RetryAfter: 150 * ms}, ps, "in the window before Start")
	got, ps := s.Take(950, lim, w, 1)
	assert.Equal(t, algo.FixedWindowState{Start: 1000, Count: 3}, got)
	assert.Equal(t, core.PolicyState{Allowed: true, ResetAfter: 150 * ms}, ps)

	got, ps = s.Eval(900, lim, w, 1)
	assert.Equal(t, algo.FixedWindowState{Start: 1000, Count: 2}, got, "exactly a window before Start: kept")
	assert.Equal(t, core.PolicyState{Allowed: true, Remaining: 1, ResetAfter: 200 * ms}, ps)

	got, ps = s.Eval(899, lim, w, 1)
	assert.Equal(t, algo.FixedWindowState{Start: 800, Count: 2}, got, "more than a window before Start: moved")
	assert.Equal(t, core.PolicyState{Allowed: true, Remaining: 1, ResetAfter: 1 * ms}, ps)
}

func TestFixedWindowExpired(t *testing.T) {
	s := algo.FixedWindowState{Start: 1000, Count: 1}
	assert.False(t, s.Expired(0, 100), "in the future")
	assert.False(t, s.Expired(1099, 100))
	assert.True(t, s.Expired(1100, 100))
}

// A sliding counter a little in the future is evaluated at its Start, the
// gap added to its waits; one more than a window in the future moves,
// counts kept, to the bucket holding now.
func TestSlidingWindowClockStepBack(t *testing.T) {
	const lim, w = 3, 100
	s := algo.SlidingWindowState{Start: 1000, Curr: 2}

	// At 1000, a cost of 2 waits into the next bucket until the two units
	// weigh one: 1150, 200 ms after now.
	_, ps := s.Eval(950, lim, w, 2)
	assert.Equal(t, core.PolicyState{Remaining: 1, ResetAfter: 250 * ms, RetryAfter: 200 * ms}, ps, "in the window before Start")
	got, ps := s.Take(950, lim, w, 1)
	assert.Equal(t, algo.SlidingWindowState{Start: 1000, Curr: 3}, got)
	assert.Equal(t, core.PolicyState{Allowed: true, ResetAfter: 250 * ms}, ps)
	got, ps = s.Take(950, lim, w, 2)
	assert.Equal(t, s, got, "denied: nothing charged")
	assert.Equal(t, core.PolicyState{Remaining: 1, ResetAfter: 250 * ms, RetryAfter: 200 * ms}, ps)

	got, ps = s.Eval(900, lim, w, 1)
	assert.Equal(t, s, got, "exactly a window before Start: kept")
	assert.Equal(t, core.PolicyState{Allowed: true, Remaining: 1, ResetAfter: 300 * ms}, ps)

	got, ps = s.Eval(899, lim, w, 1)
	assert.Equal(t, algo.SlidingWindowState{Start: 800, Curr: 2}, got, "more than a window before Start: moved")
	assert.Equal(t, core.PolicyState{Allowed: true, Remaining: 1, ResetAfter: 101 * ms}, ps)

	// An empty state in the future has nothing to reset: no gap added.
	_, ps = algo.SlidingWindowState{Start: 1000}.Eval(950, lim, w, 1)
	assert.Equal(t, core.PolicyState{Allowed: true, Remaining: 3}, ps)
	_, ps = algo.SlidingWindowState{Start: 1000}.Eval(950, lim, w, 4)
	assert.Equal(t, core.PolicyState{Remaining: 3, RetryAfter: 150 * ms}, ps, "a cost above the limit")

	// Only the previous bucket in the future: it resets a window after Start.
	_, ps = algo.SlidingWindowState{Start: 1000, Prev: 3}.Eval(950, lim, w, 1)
	assert.Equal(t, core.PolicyState{Remaining: 0, ResetAfter: 150 * ms, RetryAfter: 84 * ms}, ps)
}

func TestSlidingWindowExpired(t *testing.T) {
	s := algo.SlidingWindowState{Start: 1000, Curr: 1}
	assert.False(t, s.Expired(0, 100), "in the future")
	assert.False(t, s.Expired(1199, 100))
	assert.True(t, s.Expired(1200, 100))
}

// The buffer grows by doubling up to the bound the limit and window set,
// and shrinks to half once a quarter or less of it is used.
func TestSlidingLogBufferSize(t *testing.T) {
	const lim, w = 1000, 100
	var l algo.SlidingLogState
	for at := int64(1); at <= 16; at++ {
		l.Take(at, at, lim, w, 1)
	}
	assert.Equal(t, 16, l.Len())
	assert.Equal(t, 16, l.Cap(), "doubled from 4 to 8 to 16")
	l.Take(17, 17, lim, w, 1)
	assert.Equal(t, 32, l.Cap())

	// At 107 the records of 1..7 have left: 10 remain of 32, over a
	// quarter, and the admission makes 11.
	l.Take(107, 107, lim, w, 1)
	assert.Equal(t, 11, l.Len())
	assert.Equal(t, 32, l.Cap())
	// At 110 those of 8..10 leave: exactly a quarter, 8 of 32, is used,
	// so the buffer is halved before the admission makes 9.
	l.Take(110, 110, lim, w, 1)
	assert.Equal(t, 9, l.Len())
	assert.Equal(t, 16, l.Cap())

	// The bound: no more records than milliseconds in the window.
	var small algo.SlidingLogState
	for at := int64(1); at <= 40; at++ {
		small.Take(at, at, lim, 5, 1)
	}
	assert.Equal(t, 5, small.Len())
	assert.Equal(t, 6, small.Cap(), "grown to the window's 5 ms + 1, not doubled to 8")

	// A buffer of the smallest size is kept, however empty.
	var tiny algo.SlidingLogState
	tiny.Take(1, 1, lim, w, 1)
	tiny.Take(500, 500, lim, w, 1)
	assert.Equal(t, 4, tiny.Cap())
}

// Basis is not ok exactly when a Take at now would rebase the log: when
// its newest record lies more than a window after now.
func TestSlidingLogBasisAtTheRebaseEdge(t *testing.T) {
	const lim, w = 5, 50
	var l algo.SlidingLogState
	l.Take(1000, 1000, lim, w, 2)

	count, at, ok := l.Basis(950, 950, w)
	assert.True(t, ok, "the newest record exactly a window after now")
	assert.Equal(t, int64(2), count)
	assert.Equal(t, int64(1000), at, "recorded at the newest record's instant")
	_, _, ok = l.Basis(949, 949, w)
	assert.False(t, ok, "more than a window after now: a Take rebases")

	count, at, ok = l.Basis(1049, 1050, w)
	assert.True(t, ok)
	assert.Equal(t, int64(2), count)
	assert.Equal(t, int64(1050), at)
	count, _, ok = l.Basis(1050, 1050, w)
	assert.True(t, ok)
	assert.Equal(t, int64(0), count, "the record has left the window")
}

// Charge trusts its caller: a charge past a lowered limit, on a full
// buffer, is recorded, never a panic.
func TestSlidingLogChargePastALoweredLimit(t *testing.T) {
	const w = 100
	var l algo.SlidingLogState
	for at := int64(1); at <= 4; at++ {
		l.Take(at, at, 10, w, 1)
	}
	assert.Equal(t, 4, l.Cap())
	ps := l.Charge(5, 5, 2, w, 1)
	assert.Equal(t, 5, l.Len())
	assert.Equal(t, int64(5), l.Count())
	assert.Equal(t, core.PolicyState{Allowed: true, ResetAfter: w * ms}, ps)
}

// Running totals past 2^52 are renumbered from zero (the Redis script
// holds them in doubles); the counts read off them stay exact.
func TestSlidingLogRenumbersLargeTotals(t *testing.T) {
	const c, w = int64(1) << 50, 10
	var l algo.SlidingLogState
	for at := int64(0); at <= 100; at += 5 {
		// Each window holds this record and the one 5 ms before.
		want := core.PolicyState{Allowed: true, ResetAfter: w * ms}
		if at == 0 {
			want.Remaining = c
		}
		assert.Equal(t, want, l.Take(at, at, 2*c, w, c), "at %d", at)
		assert.LessOrEqual(t, l.Count(), 2*c, "at %d", at)
	}
	ps := l.Eval(102, 102, 2*c, w, 1)
	assert.Equal(t, core.PolicyState{ResetAfter: 8 * ms, RetryAfter: 3 * ms}, ps, "the record at 95 leaves first")

	// Renumbered on a full buffer, after records were dropped: every
	// record is renumbered once.
	const big, lim = int64(1) << 52, int64(1)<<52 + 10
	var f algo.SlidingLogState
	for _, at := range []int64{0, 60, 120, 130, 140} { // 0 leaves at 120
		f.Take(at, at, lim, 100, 1)
	}
	assert.Equal(t, 4, f.Len())
	assert.Equal(t, 4, f.Cap(), "full")
	assert.True(t, f.Take(150, 150, lim, 100, big).Allowed)
	assert.Equal(t, int64(7), f.Eval(161, 161, lim, 100, 1).Remaining, "60 has left; 120 to 150 hold 3 + 2^52")
}

// A cost above the limit is never admitted; on an empty counter it is
// told to come back when the bucket ends, as the fixed window tells it
// (the Redis script answers the same).
func TestSlidingWindowCostAboveLimit(t *testing.T) {
	_, ps := algo.SlidingWindowState{}.Eval(1030, 3, 100, 4)
	assert.Equal(t, core.PolicyState{Remaining: 3, RetryAfter: 70 * ms}, ps)
	_, ps = algo.FixedWindowState{}.Eval(1030, 3, 100, 4)
	assert.Equal(t, core.PolicyState{Remaining: 3, RetryAfter: 70 * ms}, ps)
}
