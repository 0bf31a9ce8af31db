package storetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/internal/oracle"
	"github.com/ratewindow/ratewindow/internal/policytest"
)

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

func validated(t *testing.T, ps ...core.Policy) []core.Policy {
	t.Helper()
	out, err := policytest.Validate(ps)
	require.NoError(t, err)
	return out
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

// runHonestSeveral checks RetryAfter as a Limiter reads it with several
// policies: the longest wait of the policies that deny. A lone client
// that waits exactly that long is allowed by every policy; one a
// millisecond sooner is still denied by one.
func runHonestSeveral(t *testing.T, newStore func(t *testing.T) core.Store) {
	ctx := context.Background()
	s := newStore(t)
	rng := rand.New(rand.NewPCG(3, 5))
	algs := []core.Algorithm{core.FixedWindow, core.SlidingWindow, core.SlidingLog}
	now := int64(0)
	for trial := 0; trial < 60; trial++ {
		ps := validated(t,
			core.Per(3+rng.Int64N(5), time.Duration(200+rng.IntN(400))*time.Millisecond).Named("a").Using(algs[rng.IntN(3)]),
			core.Per(8+rng.Int64N(8), time.Duration(600+rng.IntN(900))*time.Millisecond).Named("b").Using(algs[rng.IntN(3)]),
		)
		key := fmt.Sprintf("several-%d", trial)
		r, cost := fillUntilDenied(t, s, rng, key, ps, &now, 60)
		wait := max(r.States[0].RetryAfter, r.States[1].RetryAfter).Milliseconds()
		require.Positive(t, wait)
		p, err := s.Peek(ctx, key, ps, cost, at(now+wait-1))
		require.NoError(t, err)
		require.False(t, p.States[0].Allowed && p.States[1].Allowed, "trial %d: allowed 1ms before RetryAfter=%dms", trial, wait)
		p, err = s.Peek(ctx, key, ps, cost, at(now+wait))
		require.NoError(t, err)
		require.True(t, p.States[0].Allowed && p.States[1].Allowed, "trial %d: denied at RetryAfter=%dms: %+v", trial, wait, p.States[:2])
		now += 3000
	}
}

// runIsolationTricky: keys that are prefixes of one another, or hold
// characters a store might treat specially (separators, glob and hash-tag
// characters, NUL, non-ASCII, bytes that are not UTF-8, a long key), or
// long keys that differ only in their last byte (past where a store might
// cut them), never share counts, and Reset of one leaves the others alone.
func runIsolationTricky(t *testing.T, s core.Store) {
	ctx := context.Background()
	keys := []string{"a", "ab", "a:", "a:b", "a*", "a?", "a[b]", "{a}", "a{", "a}", "{a}b", "a\x00", "a\x00b", "a\n", "é", "e\u0301", " a", string(make([]byte, 5000)),
		// Not UTF-8: a header can carry any byte.
		"\xff", "\xfe", "a\xff", "a\xc3", "\xed\xa0\x80"}
	for _, n := range []int{200, 1000, 1 << 16} {
		long := strings.Repeat("k", n)
		keys = append(keys, long+"a", long+"b")
	}
	for _, alg := range []core.Algorithm{core.FixedWindow, core.SlidingWindow, core.SlidingLog} {
		ps := validated(t, core.Per(2, time.Minute).Using(alg), core.Per(5, time.Hour).Named("h").Using(core.Algorithm((int(alg)+1)%3)))
		for _, k := range keys {
			r, err := s.Take(ctx, k, ps, 2, at(0))
			require.NoError(t, err)
			require.True(t, r.States[0].Allowed && r.States[1].Allowed, "%v: key %q shares counts with another", alg, k)
		}
		for i, k := range keys {
			if i%2 == 0 {
				require.NoError(t, s.Reset(ctx, k, ps))
			}
		}
		for i, k := range keys {
			r, err := s.Peek(ctx, k, ps, 1, at(1))
			require.NoError(t, err)
			require.Equal(t, i%2 == 0, r.States[0].Allowed, "%v: key %q after resetting every other key", alg, k)
		}
		for _, k := range keys {
			require.NoError(t, s.Reset(ctx, k, ps))
		}
	}
}

// runBadCalls makes the calls a Limiter never makes but a direct caller
// can: no policy, more than core.MaxPolicies, a cost below one. Each is
// refused with an error (ErrInvalidConfig for the policies,
// ErrInvalidCost for the cost), never a panic, and charges nothing. Reset
// with no policy or too many may do nothing or return ErrInvalidConfig.
// The empty key gets a decision or an error, never a panic. The
// calls just inside the contract (core.MaxPolicies policies, a cost of
// a whole limit) are decided.
func runBadCalls(t *testing.T, s core.Store) {
	ctx := context.Background()
	one := validated(t, core.Per(2, time.Second).Named("a"))
	many := make([]core.Policy, core.MaxPolicies+1)
	for i := range many {
		many[i] = validated(t, core.Per(2, time.Duration(i+1)*time.Second).Named(fmt.Sprintf("p%d", i)))[0]
	}
	calls := []struct {
		name     string
		policies []core.Policy
		cost     int64
		want     error
	}{
		{"no policy", nil, 1, core.ErrInvalidConfig},
		{"too many policies", many, 1, core.ErrInvalidConfig},
		{"zero cost", one, 0, core.ErrInvalidCost},
		{"negative cost", one, -1, core.ErrInvalidCost},
	}
	for _, c := range calls {
		_, err := s.Take(ctx, "bad", c.policies, c.cost, at(0))
		require.ErrorIs(t, err, c.want, "Take, %s", c.name)
		_, err = s.Peek(ctx, "bad", c.policies, c.cost, at(0))
		require.ErrorIs(t, err, c.want, "Peek, %s", c.name)
	}
	// Reset with no policy or too many: nothing to forget, or an error.
	for _, c := range calls[:2] {
		err := s.Reset(ctx, "bad", c.policies)
		if err != nil {
			require.ErrorIs(t, err, core.ErrInvalidConfig, "Reset, %s", c.name)
		}
	}
	// The empty key, which a Limiter refuses before any store call: a
	// decision or an error, never a panic.
	_, _ = s.Take(ctx, "", one, 1, at(0))
	_, _ = s.Peek(ctx, "", one, 1, at(0))
	_ = s.Reset(ctx, "", one)
	// Nothing was charged: the whole limit is still there.
	r, err := s.Take(ctx, "bad", one, 2, at(0))
	require.NoError(t, err)
	require.True(t, r.States[0].Allowed, "a refused call charged the key")

	// The edge of the contract: core.MaxPolicies policies and a cost of
	// a whole limit make a valid call, decided like any other.
	edge := many[:core.MaxPolicies]
	for i, want := range []bool{true, false} {
		r, err = s.Take(ctx, "edge", edge, 2, at(0))
		require.NoError(t, err, "Take with %d policies", len(edge))
		for j := range edge {
			require.Equal(t, want, r.States[j].Allowed, "request %d, policy %s", i, edge[j].Name)
			require.Zero(t, r.States[j].Remaining, "request %d, policy %s", i, edge[j].Name)
		}
		_, err = s.Peek(ctx, "edge", edge, 1, at(0))
		require.NoError(t, err, "Peek with %d policies", len(edge))
	}
}

// runRealTimeStepBack: a clock that steps back by more than a window,
// between milliseconds, makes a sliding log move what it holds to the
// stepped clock. What it keeps must count for a full window of real time
// from the step, as an admission at that instant would, not up to a
// millisecond less: no real interval shorter than the window holds more
// than the limit across the step, with one policy or several.
func runRealTimeStepBack(t *testing.T, newStore func(t *testing.T) core.Store) {
	ctx := context.Background()
	const window = 5 * time.Millisecond
	us := func(n int64) time.Time { return base.Add(time.Duration(n) * time.Microsecond) }
	for name, ps := range map[string][]core.Policy{
		"one":     validated(t, core.Per(2, window).Using(core.SlidingLog)),
		"several": validated(t, core.Per(2, window).Using(core.SlidingLog), core.PerHour(100).Named("hour")),
	} {
		t.Run(name, func(t *testing.T) {
			s := newStore(t)
			r, err := s.Take(ctx, "k", ps, 2, us(500)) // the real instant 0.5 ms
			require.NoError(t, err)
			require.True(t, r.States[0].Allowed)
			// The clock steps back 10.8 ms; no real time passes.
			r, err = s.Take(ctx, "k", ps, 1, us(-10_300))
			require.NoError(t, err)
			require.False(t, r.States[0].Allowed, "the 2 units admitted before the step still count")
			// 4.9 ms of real time after the admission and the step.
			r, err = s.Take(ctx, "k", ps, 1, us(-5_400))
			require.NoError(t, err)
			require.False(t, r.States[0].Allowed, "3 units admitted within 4.9ms of real time, window %v", window)
			require.Equal(t, ms(1), r.States[0].RetryAfter)
			// 5.4 ms after the step: a full window of real time has passed.
			r, err = s.Take(ctx, "k", ps, 1, us(-4_900))
			require.NoError(t, err)
			require.True(t, r.States[0].Allowed, "denied a full window of real time after the step")
		})
	}
}
