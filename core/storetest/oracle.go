package storetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/internal/oracle"
	"github.com/ratewindow/ratewindow/internal/policytest"
)

// runOracle replays random sequences against the store and the oracle and
// requires identical results.
func runOracle(t *testing.T, newStore func(t *testing.T) core.Store) {
	mixes := map[string][]core.Policy{
		"fixed":   {core.Per(5, 300*time.Millisecond).Using(core.FixedWindow)},
		"sliding": {core.Per(9, 500*time.Millisecond)},
		"log":     {core.Per(6, 400*time.Millisecond).Using(core.SlidingLog)},
		"mixed": {
			core.Per(4, 200*time.Millisecond).Named("short").Using(core.SlidingLog),
			core.Per(10, time.Second).Named("medium"),
			core.Per(15, 1500*time.Millisecond).Named("long").Using(core.FixedWindow),
		},
	}
	ctx := context.Background()
	for name, raw := range mixes {
		t.Run(name, func(t *testing.T) {
			ps, err := policytest.Validate(raw)
			require.NoError(t, err)
			s, o := newStore(t), oracle.New()
			rng := rand.New(rand.NewPCG(uint64(len(name)), 42))
			now := int64(0)
			minLimit := ps[0].Limit
			for _, p := range ps {
				minLimit = min(minLimit, p.Limit)
			}
			for i := 0; i < 400; i++ {
				now += rng.Int64N(90)
				key := fmt.Sprintf("k%d", rng.IntN(3))
				cost := 1 + rng.Int64N(min(3, minLimit))
				switch rng.IntN(10) {
				case 0:
					got, err := s.Peek(ctx, key, ps, cost, at(now))
					require.NoError(t, err)
					require.Equal(t, used(o.Take(key, ps, cost, now, false), ps), used(got, ps), "step %d: Peek(%s, cost %d) at %d", i, key, cost, now)
				case 1:
					if rng.IntN(4) == 0 {
						require.NoError(t, s.Reset(ctx, key, ps))
						o.Reset(key, ps)
					}
				default:
					got, err := s.Take(ctx, key, ps, cost, at(now))
					require.NoError(t, err)
					require.Equal(t, used(o.Take(key, ps, cost, now, true), ps), used(got, ps), "step %d: Take(%s, cost %d) at %d", i, key, cost, now)
				}
			}
		})
	}
}

// replay runs steps random calls (mostly Take, some Peek) on key against
// the store and the oracle, at instants moving forward by up to maxStep
// ms, with a cost from cost(rng, policies) and the policies from
// policies(rng), and requires identical results.
func replay(t *testing.T, s core.Store, rng *rand.Rand, steps int, maxStep int64, policies func() []core.Policy, cost func([]core.Policy) int64) {
	t.Helper()
	ctx := context.Background()
	o := oracle.New()
	now := int64(0)
	for i := 0; i < steps; i++ {
		now += rng.Int64N(maxStep)
		ps := policies()
		c := cost(ps)
		peek := rng.IntN(5) == 0
		var got core.Result
		var err error
		if peek {
			got, err = s.Peek(ctx, "k", ps, c, at(now))
		} else {
			got, err = s.Take(ctx, "k", ps, c, at(now))
		}
		require.NoError(t, err)
		require.Equal(t, used(o.Take("k", ps, c, base.UnixMilli()+now, !peek), ps), used(got, ps), "step %d: peek %v, cost %d at %d, policies %v", i, peek, c, now, ps)
	}
}

// runLargeValues replays random sequences with the largest limit and
// costs up to it (whole limits, halves, thirds, one unit short): counts,
// sums and waits stay exact on every store.
func runLargeValues(t *testing.T, newStore func(t *testing.T) core.Store) {
	const limit = core.MaxLimit
	for _, alg := range []core.Algorithm{core.FixedWindow, core.SlidingWindow, core.SlidingLog} {
		t.Run(alg.String(), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(alg), 99))
			ps := validated(t,
				core.Per(limit, time.Second).Named("big").Using(alg),
				core.Per(limit-1, 700*time.Millisecond).Named("big2").Using(core.Algorithm((int(alg)+1)%3)),
			)
			costs := []int64{1, limit / 3, limit / 2, limit - 2, limit - 1}
			replay(t, newStore(t), rng, 150, 400,
				func() []core.Policy { return ps },
				func([]core.Policy) int64 { return costs[rng.IntN(len(costs))] })
		})
	}
}

// runLimitChanges replays random sequences in which the limit of a policy
// changes from call to call, its Name, Window and Algorithm kept: the
// policies share their counts (what lets a Limiter change a limit at run
// time), a lowered limit below the count in flight included.
func runLimitChanges(t *testing.T, newStore func(t *testing.T) core.Store) {
	for _, alg := range []core.Algorithm{core.FixedWindow, core.SlidingWindow, core.SlidingLog} {
		t.Run(alg.String(), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(alg), 7))
			var sets [][]core.Policy
			for limit := int64(1); limit <= 8; limit++ {
				sets = append(sets, validated(t,
					core.Per(limit, 300*time.Millisecond).Named("q").Using(alg),
					core.Per(9-limit, 500*time.Millisecond).Named("r"),
				))
			}
			replay(t, newStore(t), rng, 300, 90,
				func() []core.Policy { return sets[rng.IntN(len(sets))] },
				func(ps []core.Policy) int64 { return 1 + rng.Int64N(min(ps[0].Limit, ps[1].Limit, 3)) })
		})
	}
}
