package algo_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/internal/algo"
)

// takeGrid runs check over a grid of states, times, limits, windows and
// costs around window boundaries, with time running backwards included.
func takeGrid(t *testing.T, check func(start, a, b, now, limit, window, cost int64)) {
	t.Helper()
	for _, window := range []int64{1, 7, 1000} {
		for _, limit := range []int64{1, 3, 10} {
			for cost := int64(1); cost <= limit; cost++ {
				for _, start := range []int64{0, window, 5 * window} {
					for a := int64(0); a <= limit; a++ {
						for b := int64(0); b <= limit; b++ {
							for now := start - 3*window; now <= start+3*window; now += max(1, window/7) {
								check(start, a, b, now, limit, window, cost)
							}
						}
					}
				}
			}
		}
	}
}

// windowState is a counter state whose Take fuses Eval and Charge.
type windowState[S any] interface {
	Take(now, limit, window, cost int64) (S, core.PolicyState)
	Eval(now, limit, window, cost int64) (S, core.PolicyState)
	Charge(now, limit, window, cost int64) (S, core.PolicyState)
}

// requireTakeIsEvalThenCharge checks that s.Take gives the state and the
// report of s.Eval followed, when it allows, by Charge.
func requireTakeIsEvalThenCharge[S windowState[S]](t *testing.T, s S, now, limit, window, cost int64) {
	t.Helper()
	gotS, gotPS := s.Take(now, limit, window, cost)
	wantS, wantPS := s.Eval(now, limit, window, cost)
	if wantPS.Allowed {
		wantS, wantPS = wantS.Charge(now, limit, window, cost)
	}
	require.Equal(t, wantS, gotS, "state %+v now %d limit %d window %d cost %d", s, now, limit, window, cost)
	require.Equal(t, wantPS, gotPS, "state %+v now %d limit %d window %d cost %d", s, now, limit, window, cost)
}

func TestFixedWindowTakeIsEvalThenCharge(t *testing.T) {
	takeGrid(t, func(start, count, _, now, limit, window, cost int64) {
		requireTakeIsEvalThenCharge(t, algo.FixedWindowState{Start: start, Count: count}, now, limit, window, cost)
	})
}

func TestSlidingWindowTakeIsEvalThenCharge(t *testing.T) {
	takeGrid(t, func(start, prev, curr, now, limit, window, cost int64) {
		requireTakeIsEvalThenCharge(t, algo.SlidingWindowState{Start: start, Prev: prev, Curr: curr}, now, limit, window, cost)
	})
}

// TestSlidingLogTakeIsEvalThenCharge checks Take against Eval followed,
// when it allows, by Charge, on logs built by random charges and clock
// steps, pruning and rebasing included.
func TestSlidingLogTakeIsEvalThenCharge(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, window := range []int64{1, 7, 1000} {
		for _, limit := range []int64{1, 3, 10, 100} {
			var got, want algo.SlidingLogState
			now := int64(5000)
			for range 2000 {
				switch rng.IntN(10) {
				case 0:
					now -= rng.Int64N(3 * window) // the clock steps back
				default:
					now += rng.Int64N(window/3 + 2)
				}
				up := now + rng.Int64N(2)
				cost := 1 + rng.Int64N(limit)
				gotPS := got.Take(now, up, limit, window, cost)
				wantPS := want.Eval(now, up, limit, window, cost)
				if wantPS.Allowed {
					wantPS = want.Charge(now, up, limit, window, cost)
				}
				require.Equal(t, wantPS, gotPS, "now %d limit %d window %d cost %d", now, limit, window, cost)
				require.Equal(t, want, got, "now %d limit %d window %d cost %d", now, limit, window, cost)
			}
		}
	}
}

// BenchmarkSlidingLogTake is an admission on a log that never fills, a
// millisecond later every 64 calls: the work a hot key does under the
// store's lock.
func BenchmarkSlidingLogTake(b *testing.B) {
	var l algo.SlidingLogState
	now := int64(1_700_000_000_000)
	for i := 0; b.Loop(); i++ {
		if i&63 == 0 {
			now++
		}
		if !l.Take(now, now+1, 1_000_000_000, 3_600_000, 1).Allowed {
			b.Fatal("denied")
		}
	}
}
