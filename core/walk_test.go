package core_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/internal/clocktest"
)

// walkPolicies draws one to MaxPolicies policies of small limits and
// windows (a few to a few dozen milliseconds), any algorithms.
func walkPolicies(rng *rand.Rand) []core.Policy {
	n := 1 + rng.IntN(core.MaxPolicies)
	ps := make([]core.Policy, n)
	for i := range ps {
		alg := core.Algorithm(rng.IntN(3))
		ps[i] = core.Per(1+rng.Int64N(8), time.Duration(2+rng.IntN(30))*time.Millisecond).
			Using(alg).Named(fmt.Sprintf("p%d", i))
	}
	return ps
}

// checkDecision checks what every Decision must hold, whatever the state:
// the binding policy's fields, and each state's own consistency.
func checkDecision(t *testing.T, d core.Decision, step int) {
	t.Helper()
	states := d.States()
	require.Len(t, states, len(d.Policies), "step %d", step)
	all := true
	for i, s := range states {
		p := d.Policies[i]
		all = all && s.Allowed
		require.GreaterOrEqual(t, s.Remaining, int64(0), "step %d policy %d", step, i)
		require.LessOrEqual(t, s.Remaining, p.Limit, "step %d policy %d", step, i)
		require.Equal(t, !s.Allowed, s.RetryAfter > 0, "step %d policy %d: %+v", step, i, s)
		require.GreaterOrEqual(t, s.ResetAfter, time.Duration(0), "step %d policy %d", step, i)
		require.LessOrEqual(t, s.RetryAfter, 3*p.Window, "step %d policy %d: %+v", step, i, s)
		require.LessOrEqual(t, s.ResetAfter, 3*p.Window, "step %d policy %d: %+v", step, i, s)
		if s.Remaining < p.Limit {
			require.Positive(t, s.ResetAfter, "step %d policy %d: quota not whole, yet no wait: %+v", step, i, s)
		}
	}
	b := states[d.Index]
	require.Equal(t, all, d.Allowed, "step %d", step)
	require.Equal(t, b.Remaining, d.Remaining, "step %d", step)
	require.Equal(t, b.RetryAfter, d.RetryAfter, "step %d", step)
	require.Equal(t, b.ResetAfter, d.ResetAfter, "step %d", step)
	require.Equal(t, d.Policies[d.Index].Limit, d.Limit, "step %d", step)
	for i, s := range states {
		if d.Allowed {
			require.GreaterOrEqual(t, s.Remaining, d.Remaining, "step %d: binding has the least Remaining", step)
			if s.Remaining == d.Remaining {
				require.LessOrEqual(t, s.ResetAfter, d.ResetAfter, "step %d: of a tie, the longest ResetAfter", step)
			}
		} else if !s.Allowed {
			require.LessOrEqual(t, s.RetryAfter, d.RetryAfter, "step %d policy %d: binding waits longest", step, i)
		}
	}
}

// A random walk of requests on a Limiter over the memory store, its clock
// stepping back now and then, with Peeks, Resets and limits changed by
// SetPolicies: every Decision is consistent, Peek answers what AllowN then
// does, and a denied client that waits RetryAfter (and no less) is let in.
func TestLimiterRandomWalk(t *testing.T) {
	ctx := context.Background()
	for seed := uint64(1); seed <= 60; seed++ {
		rng := rand.New(rand.NewPCG(seed, 77))
		clock := clocktest.New(t0.Add(time.Duration(rng.IntN(1000)) * time.Microsecond))
		ps := walkPolicies(rng)
		l, err := core.NewLimiter(memory.New(), ps, core.WithClock(clock))
		require.NoError(t, err)
		for step := range 400 {
			switch r := rng.IntN(100); {
			case r < 3:
				clock.Advance(-time.Duration(rng.IntN(90_000)) * time.Microsecond)
			case r < 5:
				require.NoError(t, l.Reset(ctx, "k"))
			case r < 7:
				// Same names, windows and algorithms, new limits.
				next := append([]core.Policy(nil), l.Policies()...)
				for i := range next {
					next[i].Limit = 1 + rng.Int64N(8)
				}
				require.NoError(t, l.SetPolicies(next...))
			default:
				clock.Advance(time.Duration(rng.IntN(4000)) * time.Microsecond)
			}
			cost := 1 + rng.Int64N(minLimit(l.Policies()))
			peek, err := l.Peek(ctx, "k", cost)
			require.NoError(t, err)
			checkDecision(t, peek, step)
			d, err := l.AllowN(ctx, "k", cost)
			require.NoError(t, err)
			checkDecision(t, d, step)
			require.Equal(t, peek.Allowed, d.Allowed, "seed %d step %d: Peek said otherwise", seed, step)
			checkResetAfter(t, l, clock, d, fmt.Sprintf("seed %d step %d", seed, step))
			if !d.Allowed {
				require.Equal(t, peek.States(), d.States(), "seed %d step %d: a denial charges nothing", seed, step)
				now := clock.Now()
				if d.RetryAfter > time.Millisecond {
					clock.Set(now.Add(d.RetryAfter - time.Millisecond))
					early, err := l.Peek(ctx, "k", cost)
					require.NoError(t, err)
					require.False(t, early.Allowed, "seed %d step %d: allowed 1ms before RetryAfter %v: %+v", seed, step, d.RetryAfter, d.States())
				}
				clock.Set(now.Add(d.RetryAfter))
				late, err := l.Peek(ctx, "k", cost)
				require.NoError(t, err)
				require.True(t, late.Allowed, "seed %d step %d: denied after RetryAfter %v: %+v then %+v", seed, step, d.RetryAfter, d.States(), late.States())
				clock.Set(now)
			}
		}
	}
}

// checkResetAfter checks each policy's ResetAfter in d, the clock's answer
// just now: with no further requests, the policy's quota is whole after
// it, and (for the fixed window and the log, whose counts leave all at
// once) not a millisecond before. It leaves the clock as it found it.
func checkResetAfter(t *testing.T, l *core.Limiter, clock *clocktest.Clock, d core.Decision, at string) {
	t.Helper()
	ctx := context.Background()
	now := clock.Now()
	defer clock.Set(now)
	for i, s := range d.States() {
		p := d.Policies[i]
		if s.ResetAfter == 0 {
			continue
		}
		clock.Set(now.Add(s.ResetAfter))
		later, err := l.Peek(ctx, "k", 1)
		require.NoError(t, err)
		require.Equal(t, p.Limit, later.States()[i].Remaining, "%s policy %v: not whole after ResetAfter %v: %+v", at, p, s.ResetAfter, s)
		if p.Algorithm == core.SlidingWindow {
			continue
		}
		clock.Set(now.Add(s.ResetAfter - time.Millisecond))
		before, err := l.Peek(ctx, "k", 1)
		require.NoError(t, err)
		require.Less(t, before.States()[i].Remaining, p.Limit, "%s policy %v: whole 1ms before ResetAfter %v: %+v", at, p, s.ResetAfter, s)
	}
}

// The sliding log is exact in real time, across steps of the clock back:
// requests at random real instants (most between milliseconds), of random
// costs, alone or beside other policies, on a clock that now and then
// steps back by up to a few windows. No real interval shorter than the
// log's window holds more than its limit in admitted units.
func TestSlidingLogRealTimeAcrossStepsBack(t *testing.T) {
	ctx := context.Background()
	type admission struct {
		real time.Duration // real time since the start
		cost int64
	}
	for seed := uint64(1); seed <= 60; seed++ {
		rng := rand.New(rand.NewPCG(seed, 99))
		ps := walkPolicies(rng)
		logAt := rng.IntN(len(ps))
		for i := range ps {
			if i != logAt { // roomy, so that the log binds most often
				ps[i].Limit, ps[i].Window = 64, time.Duration(1+rng.IntN(10))*time.Millisecond
			}
		}
		ps[logAt].Algorithm = core.SlidingLog
		limit, window := ps[logAt].Limit, ps[logAt].Window
		clock := clocktest.New(t0)
		l, err := core.NewLimiter(memory.New(), ps, core.WithClock(clock))
		require.NoError(t, err)
		var (
			real     time.Duration
			admitted []admission
		)
		for step := range 2000 {
			dt := time.Duration(rng.IntN(3000)) * time.Microsecond
			real += dt
			clock.Advance(dt)
			if rng.IntN(100) < 2 {
				clock.Advance(-time.Duration(rng.IntN(int(3*window/time.Microsecond))) * time.Microsecond)
			}
			if rng.IntN(4) == 0 {
				_, err := l.Peek(ctx, "k", 1)
				require.NoError(t, err)
			}
			cost := 1 + rng.Int64N(minLimit(ps))
			d, err := l.AllowN(ctx, "k", cost)
			require.NoError(t, err)
			if !d.Allowed {
				continue
			}
			admitted = append(admitted, admission{real, cost})
			sum := int64(0)
			for i := len(admitted) - 1; i >= 0 && real-admitted[i].real < window; i-- {
				sum += admitted[i].cost
			}
			require.LessOrEqual(t, sum, limit, "seed %d step %d: units admitted within %v of real time, policies %v", seed, step, window, ps)
		}
		require.Greater(t, len(admitted), 50, "seed %d: too few admissions to tell", seed)
	}
}

// minLimit is the smallest Limit of ps: the largest cost they all accept.
func minLimit(ps []core.Policy) int64 {
	m := ps[0].Limit
	for _, p := range ps[1:] {
		m = min(m, p.Limit)
	}
	return m
}
