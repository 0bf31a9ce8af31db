package storetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
)

// requireHonest checks that a request of cost for key, denied at now with
// retry, is still denied a millisecond sooner and allowed at now + retry.
// It charges key.
func requireHonest(t *testing.T, s core.Store, key string, ps []core.Policy, cost, now int64, retry time.Duration) {
	t.Helper()
	ctx := context.Background()
	wait := retry.Milliseconds()
	require.Positive(t, wait)
	// The usual wait (at most two windows) plus a clock step of at most
	// a window.
	require.LessOrEqual(t, wait, 3*ps[0].Window.Milliseconds())
	if wait > 1 {
		p, err := s.Peek(ctx, key, ps, cost, at(now+wait-1))
		require.NoError(t, err)
		require.False(t, p.States[0].Allowed, "allowed 1ms before RetryAfter=%dms", wait)
	}
	p, err := s.Take(ctx, key, ps, cost, at(now+wait))
	require.NoError(t, err)
	require.True(t, p.States[0].Allowed, "denied at RetryAfter=%dms", wait)
}

// runHonest checks, for many states, that a denied request retried exactly
// RetryAfter later is allowed and one retried a millisecond sooner is not.
func runHonest(t *testing.T, newStore func(t *testing.T) core.Store) {
	rng := rand.New(rand.NewPCG(7, 11))
	for _, alg := range []core.Algorithm{core.FixedWindow, core.SlidingWindow, core.SlidingLog} {
		t.Run(alg.String(), func(t *testing.T) {
			s := newStore(t)
			ps := policy(alg, 7, 700*time.Millisecond)
			now := int64(0)
			for trial := 0; trial < 40; trial++ {
				key := fmt.Sprintf("honest-%d", trial)
				r, cost := fillUntilDenied(t, s, rng, key, ps, &now, 120)
				wait := r.States[0].RetryAfter.Milliseconds()
				require.LessOrEqual(t, wait, 2*ps[0].Window.Milliseconds(), "at most two windows without clock steps")
				requireHonest(t, s, key, ps, cost, now, r.States[0].RetryAfter)
				now += wait
			}
		})
	}
}

// fillUntilDenied takes random costs (1 to 3) on key at instants moving
// *now forward by up to maxStep ms, until some policy denies, and returns
// that denial and its cost; *now is left at its instant.
func fillUntilDenied(t *testing.T, s core.Store, rng *rand.Rand, key string, ps []core.Policy, now *int64, maxStep int64) (core.Result, int64) {
	t.Helper()
	for {
		*now += rng.Int64N(maxStep)
		cost := 1 + rng.Int64N(3)
		r, err := s.Take(context.Background(), key, ps, cost, at(*now))
		require.NoError(t, err)
		for i := range ps {
			if !r.States[i].Allowed {
				return r, cost
			}
		}
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
