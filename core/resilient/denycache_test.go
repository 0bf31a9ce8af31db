package resilient_test

import (
	"context"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/internal/standin"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/core/resilient"
	"github.com/ratewindow/ratewindow/internal/clocktest"
)

func TestDenyCacheSavesPrimaryCalls(t *testing.T) {
	ctx := context.Background()
	ps := policies(core.Per(3, time.Second).Using(core.FixedWindow))
	d := newDouble()
	s, err := resilient.New(d, resilient.WithDenyCache())
	require.NoError(t, err)

	now := t0
	for i := range 3 {
		r, err := s.Take(ctx, "attacker", ps, 1, now)
		require.NoError(t, err)
		require.True(t, r.States[0].Allowed, "request %d", i)
	}
	// 1,000 requests in the rest of the window: one primary call.
	for i := range 1000 {
		at := now.Add(time.Duration(i) * time.Millisecond / 2)
		r, err := s.Take(ctx, "attacker", ps, 1, at)
		require.NoError(t, err)
		require.False(t, r.States[0].Allowed)
		require.Equal(t, time.Second-at.Sub(now).Truncate(time.Millisecond), r.States[0].RetryAfter, "request %d", i)
	}
	assert.Equal(t, int64(4), d.calls.Load())
	assert.Equal(t, int64(999), s.Stats().DenyCacheHits)
	assert.Equal(t, 1, s.Stats().DenyCacheEntries)

	// Another key is not affected.
	r, err := s.Take(ctx, "bystander", ps, 1, now)
	require.NoError(t, err)
	assert.True(t, r.States[0].Allowed)

	// When the RetryAfter has passed the primary is asked again.
	r, err = s.Take(ctx, "attacker", ps, 1, now.Add(time.Second))
	require.NoError(t, err)
	assert.True(t, r.States[0].Allowed)
	assert.Equal(t, int64(6), d.calls.Load())
}

func TestDenyCacheCostRule(t *testing.T) {
	ctx := context.Background()
	ps := policies(core.Per(10, time.Minute).Using(core.FixedWindow))
	d := newDouble()
	s, err := resilient.New(d, resilient.WithDenyCache())
	require.NoError(t, err)
	r, err := s.Take(ctx, "k", ps, 8, t0)
	require.NoError(t, err)
	require.True(t, r.States[0].Allowed)

	r, err = s.Take(ctx, "k", ps, 5, t0) // denied: 8 + 5 > 10
	require.NoError(t, err)
	require.False(t, r.States[0].Allowed)
	calls := d.calls.Load()

	r, err = s.Take(ctx, "k", ps, 5, t0) // same cost: remembered
	require.NoError(t, err)
	require.False(t, r.States[0].Allowed)
	assert.Equal(t, calls, d.calls.Load())

	r, err = s.Take(ctx, "k", ps, 6, t0) // another cost: asked again
	require.NoError(t, err)
	require.False(t, r.States[0].Allowed)
	calls++
	assert.Equal(t, calls, d.calls.Load())

	r, err = s.Take(ctx, "k", ps, 2, t0) // smaller cost: may fit, and does
	require.NoError(t, err)
	require.True(t, r.States[0].Allowed)
	assert.Equal(t, calls+1, d.calls.Load())
	assert.Equal(t, 0, s.Stats().DenyCacheEntries, "an admitted request forgets the key's denial")
}

func TestDenyCacheClearedByResetAndPolicyChange(t *testing.T) {
	ctx := context.Background()
	d := newDouble()
	clock := clocktest.New(t0)
	s, err := resilient.New(d, resilient.WithDenyCache())
	require.NoError(t, err)
	l, err := core.NewLimiter(s, policies(core.Per(1, time.Hour).Named("h")), core.WithClock(clock))
	require.NoError(t, err)

	deny := func() {
		t.Helper()
		_, err := l.Allow(ctx, "k")
		require.NoError(t, err)
		dec, err := l.Allow(ctx, "k")
		require.NoError(t, err)
		require.False(t, dec.Allowed)
		require.Equal(t, 1, s.Stats().DenyCacheEntries)
	}

	deny()
	require.NoError(t, l.Reset(ctx, "k"))
	assert.Equal(t, 0, s.Stats().DenyCacheEntries)
	dec, err := l.Allow(ctx, "k")
	require.NoError(t, err)
	assert.True(t, dec.Allowed, "after Reset the primary decides")

	require.NoError(t, l.Reset(ctx, "k"))
	deny()
	require.NoError(t, l.SetPolicies(core.Per(5, time.Hour).Named("h")))
	dec, err = l.Allow(ctx, "k")
	require.NoError(t, err)
	assert.True(t, dec.Allowed, "a raised limit is not met by the old denial")
	assert.Equal(t, int64(3), dec.Remaining)
}

func TestDenyCacheIgnoresFallbackDenials(t *testing.T) {
	ctx := context.Background()
	ps := policies(core.Per(1, time.Hour).Using(core.FixedWindow))
	d := newDouble()
	d.down.Store(true)
	clock := clocktest.New(t0)
	s, err := resilient.New(d, resilient.WithDenyCache(), resilient.WithFallback(1),
		resilient.WithFailureThreshold(1), clocktest.Option[resilient.Option](clock))
	require.NoError(t, err)
	for range 2 {
		_, err := s.Take(ctx, "k", ps, 1, t0)
		require.ErrorIs(t, err, standin.ErrFallback)
	}
	assert.Equal(t, 0, s.Stats().DenyCacheEntries)
	d.down.Store(false)
	clock.Advance(time.Second)
	r, err := s.Take(ctx, "k", ps, 1, t0)
	require.NoError(t, err)
	assert.True(t, r.States[0].Allowed, "the primary never saw this key")
}

func TestDenyCacheBounded(t *testing.T) {
	ctx := context.Background()
	ps := policies(core.Per(1, time.Hour))
	s, err := resilient.New(memory.New(), resilient.WithDenyCache(), resilient.WithLocalMaxKeys(640))
	require.NoError(t, err)
	for i := range 20_000 {
		key := strconv.Itoa(i)
		for range 2 {
			_, err := s.Take(ctx, key, ps, 1, t0)
			require.NoError(t, err)
		}
	}
	n := s.Stats().DenyCacheEntries
	assert.LessOrEqual(t, n, 640)
	assert.Greater(t, n, 320, "the cache is used up to about its cap")
}

// TestDenyCacheMatchesPrimary drives a bare store and a deny-cached copy of
// it with the same random traffic of one process. Denied requests charge
// nothing, so both stores hold the same counts throughout, and the cached
// answers must agree with the bare store's: the same verdict always, the
// same per-policy verdicts and RetryAfter, and a Remaining never above the
// bare one.
//
// With shared counts (two policy sets holding the same policy, as tiers of
// a WithLimiterFunc function may), an admitted request of one set charges the other's
// counts behind its remembered denial: that denial only grows truer, but
// its RetryAfter and Remaining may then be too low, so only the verdict is
// compared.
func TestDenyCacheMatchesPrimary(t *testing.T) {
	t.Run("Disjoint", func(t *testing.T) {
		testDenyCacheMatches(t, false, [][]core.Policy{
			policies(core.Per(5, time.Second).Using(core.FixedWindow).Named("a")),
			policies(core.Per(5, time.Second).Named("b"), core.Per(12, 10*time.Second).Using(core.SlidingLog).Named("c")),
		})
	})
	t.Run("SharedCounts", func(t *testing.T) {
		testDenyCacheMatches(t, true, [][]core.Policy{
			policies(core.Per(5, time.Second).Using(core.FixedWindow).Named("a")),
			policies(core.Per(5, time.Second).Named("a"), core.Per(12, 10*time.Second).Using(core.SlidingLog).Named("b")),
			policies(core.Per(8, time.Second).Named("a"), core.Per(12, 10*time.Second).Using(core.SlidingLog).Named("b")),
		})
	})
}

func testDenyCacheMatches(t *testing.T, shared bool, sets [][]core.Policy) {
	ctx := context.Background()
	for seed := range uint64(6) {
		rng := rand.New(rand.NewPCG(seed, 7))
		bare := memory.New()
		d := newDouble()
		s, err := resilient.New(d, resilient.WithDenyCache())
		require.NoError(t, err)
		now := t0
		for step := range 3000 {
			now = now.Add(time.Duration(rng.IntN(150)) * time.Millisecond)
			key := "k" + strconv.Itoa(rng.IntN(3))
			ps := sets[rng.IntN(len(sets))]
			if rng.IntN(40) == 0 {
				require.NoError(t, bare.Reset(ctx, key, ps))
				require.NoError(t, s.Reset(ctx, key, ps))
				continue
			}
			cost := 1 + rng.Int64N(3)
			peek := rng.IntN(5) == 0
			var want, got core.Result
			if peek {
				want, _ = bare.Peek(ctx, key, ps, cost, now)
				got, err = s.Peek(ctx, key, ps, cost, now)
			} else {
				want, _ = bare.Take(ctx, key, ps, cost, now)
				got, err = s.Take(ctx, key, ps, cost, now)
			}
			require.NoError(t, err)
			require.Equal(t, allowed(want, len(ps)), allowed(got, len(ps)), "seed %d step %d", seed, step)
			if shared {
				continue
			}
			for i := range ps {
				w, g := want.States[i], got.States[i]
				require.Equal(t, w.Allowed, g.Allowed, "seed %d step %d policy %d", seed, step, i)
				require.Equal(t, w.RetryAfter, g.RetryAfter, "seed %d step %d policy %d", seed, step, i)
				require.LessOrEqual(t, g.Remaining, w.Remaining, "seed %d step %d policy %d", seed, step, i)
			}
		}
		assert.Greater(t, s.Stats().DenyCacheHits, int64(100), "seed %d: the cache was exercised", seed)
	}
}

func allowed(r core.Result, n int) bool {
	for i := range n {
		if !r.States[i].Allowed {
			return false
		}
	}
	return true
}

// slowReset is a core/memory store whose Reset waits until released, so a
// test can run a call while a Reset is on its way to the primary.
type slowReset struct {
	core.Store
	entered, release chan struct{}
}

func (s *slowReset) Reset(ctx context.Context, key string, ps []core.Policy) error {
	close(s.entered)
	<-s.release
	return s.Store.Reset(ctx, key, ps)
}

// A denial the primary gave while a Reset of the key was on its way (the
// client hammering the key that is being reset) is not remembered past the
// Reset: once Reset has returned, the primary decides.
func TestDenyCacheResetRacesDenial(t *testing.T) {
	ctx := context.Background()
	primary := &slowReset{Store: memory.New(), entered: make(chan struct{}), release: make(chan struct{})}
	s, err := resilient.New(primary, resilient.WithDenyCache())
	require.NoError(t, err)
	ps := policies(core.Per(1, time.Hour).Named("h"))
	r, err := s.Take(ctx, "k", ps, 1, t0)
	require.NoError(t, err)
	require.True(t, r.States[0].Allowed)
	r, err = s.Take(ctx, "k", ps, 1, t0)
	require.NoError(t, err)
	require.False(t, r.States[0].Allowed)

	reset := make(chan error)
	go func() { reset <- s.Reset(ctx, "k", ps) }()
	<-primary.entered
	// The primary has not reset yet: it denies, honestly, at this moment.
	r, err = s.Take(ctx, "k", ps, 1, t0.Add(time.Millisecond))
	require.NoError(t, err)
	require.False(t, r.States[0].Allowed)
	close(primary.release)
	require.NoError(t, <-reset)

	r, err = s.Take(ctx, "k", ps, 1, t0.Add(2*time.Millisecond))
	require.NoError(t, err)
	assert.True(t, r.States[0].Allowed, "after Reset returned, a denial from before it still answered")
}
