package resilient_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/internal/standin"
	"github.com/ratewindow/ratewindow/core/resilient"
	"github.com/ratewindow/ratewindow/internal/clocktest"
)

func TestFallbackScalesLimits(t *testing.T) {
	tests := []struct {
		name     string
		limit    int64
		replicas int
		cost     int64
		admitted int // Takes admitted in one window
	}{
		{"divides", 10, 4, 1, 2},
		{"one replica keeps the limit", 10, 1, 1, 10},
		{"at least one", 3, 8, 1, 1},
		{"cost above the share takes the whole share", 10, 4, 5, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ps := policies(core.Per(tt.limit, time.Minute).Using(core.FixedWindow))
			d := newDouble()
			d.down.Store(true)
			var mu sync.Mutex
			var causes []error
			s, err := resilient.New(d, resilient.WithFallback(tt.replicas),
				resilient.WithOnFallback(func(key string, cause error) {
					mu.Lock()
					defer mu.Unlock()
					assert.Equal(t, "k", key)
					causes = append(causes, cause)
				}))
			require.NoError(t, err)

			admitted := 0
			for range 20 {
				r, err := s.Take(context.Background(), "k", ps, tt.cost, t0)
				require.ErrorIs(t, err, standin.ErrFallback, "the fallback answers, marked as such")
				if r.States[0].Allowed {
					admitted++
				} else {
					assert.Equal(t, time.Minute, r.States[0].RetryAfter)
				}
			}
			assert.Equal(t, tt.admitted, admitted)
			require.Len(t, causes, 20)
			assert.ErrorIs(t, causes[0], errDown)
			assert.ErrorIs(t, causes[19], resilient.ErrCircuitOpen, "after the threshold the breaker is open")
			st := s.Stats()
			assert.Equal(t, int64(20), st.Fallbacks)
			assert.Equal(t, int64(resilient.DefaultFailureThreshold), d.calls.Load())
			assert.Equal(t, int64(resilient.DefaultFailureThreshold), st.PrimaryErrors)
		})
	}
}

func TestFallbackOnlyWhilePrimaryFails(t *testing.T) {
	ctx := context.Background()
	ps := policies(core.Per(4, time.Minute).Using(core.FixedWindow))
	d := newDouble()
	clock := clocktest.New(t0)
	s, err := resilient.New(d, resilient.WithFallback(2), resilient.WithFailureThreshold(1), clocktest.Option[resilient.Option](clock))
	require.NoError(t, err)
	l, err := core.NewLimiter(s, ps, core.WithClock(clock))
	require.NoError(t, err)

	// Primary healthy: its limit of 4.
	for i := range 4 {
		dec, err := l.Allow(ctx, "k")
		require.NoError(t, err)
		require.True(t, dec.Allowed, "request %d", i)
		require.False(t, dec.Fallback, "the primary decided request %d", i)
	}
	dec, err := l.Allow(ctx, "k")
	require.NoError(t, err)
	require.False(t, dec.Allowed)
	require.False(t, dec.Fallback)

	// Primary down: local share of 2, counted from zero.
	d.down.Store(true)
	for i := range 2 {
		dec, err := l.Allow(ctx, "k")
		require.NoError(t, err)
		require.True(t, dec.Allowed, "fallback request %d", i)
		require.True(t, dec.Fallback, "fallback request %d is marked", i)
		assert.Equal(t, int64(4), dec.Limit, "the decision names the limiter's policy")
		assert.Equal(t, int64(1-i), dec.Remaining, "remaining is counted against the local share")
	}
	dec, err = l.Allow(ctx, "k")
	require.NoError(t, err)
	assert.False(t, dec.Allowed)
	assert.True(t, dec.Fallback, "a fallback denial is marked too")

	// Primary back: after the interval the probe succeeds and the
	// primary's own count (still full) decides again.
	d.down.Store(false)
	clock.Advance(time.Second)
	dec, err = l.Allow(ctx, "k")
	require.NoError(t, err)
	assert.False(t, dec.Allowed)
	assert.False(t, dec.Fallback, "the primary decides again")
	assert.Equal(t, resilient.Closed, s.State())
}

func TestFallbackPeekDoesNotCharge(t *testing.T) {
	ctx := context.Background()
	ps := policies(core.Per(2, time.Minute).Using(core.FixedWindow))
	d := newDouble()
	d.down.Store(true)
	s, err := resilient.New(d, resilient.WithFallback(1))
	require.NoError(t, err)
	for range 10 {
		r, err := s.Peek(ctx, "k", ps, 1, t0)
		require.ErrorIs(t, err, standin.ErrFallback, "a fallback Peek is marked")
		require.True(t, r.States[0].Allowed)
	}
	for range 2 {
		r, err := s.Take(ctx, "k", ps, 1, t0)
		require.ErrorIs(t, err, standin.ErrFallback)
		require.True(t, r.States[0].Allowed)
	}
	r, err := s.Take(ctx, "k", ps, 1, t0)
	require.ErrorIs(t, err, standin.ErrFallback)
	require.False(t, r.States[0].Allowed)
}

func TestFallbackFollowsPolicyChanges(t *testing.T) {
	ctx := context.Background()
	d := newDouble()
	d.down.Store(true)
	s, err := resilient.New(d, resilient.WithFallback(2))
	require.NoError(t, err)
	clock := clocktest.New(t0)
	l, err := core.NewLimiter(s, policies(core.Per(4, time.Minute).Using(core.FixedWindow).Named("m")), core.WithClock(clock))
	require.NoError(t, err)
	dec, err := l.Allow(ctx, "k")
	require.NoError(t, err)
	assert.Equal(t, int64(1), dec.Remaining, "local share 4/2")
	require.NoError(t, l.SetPolicies(core.Per(40, time.Minute).Using(core.FixedWindow).Named("m")))
	dec, err = l.Allow(ctx, "k")
	require.NoError(t, err)
	assert.Equal(t, int64(18), dec.Remaining, "local share 40/2, and the count survives a change of limit")
}

func TestResetClearsFallback(t *testing.T) {
	ctx := context.Background()
	ps := policies(core.Per(1, time.Minute).Using(core.FixedWindow))
	d := newDouble()
	d.down.Store(true)
	s, err := resilient.New(d, resilient.WithFallback(1), resilient.WithFailureThreshold(100))
	require.NoError(t, err)
	r, err := s.Take(ctx, "k", ps, 1, t0)
	require.ErrorIs(t, err, standin.ErrFallback)
	require.True(t, r.States[0].Allowed)
	require.ErrorIs(t, s.Reset(ctx, "k", ps), errDown, "the primary could not be reset")
	r, err = s.Take(ctx, "k", ps, 1, t0)
	require.ErrorIs(t, err, standin.ErrFallback)
	assert.True(t, r.States[0].Allowed, "the local count was reset")
}

func TestFallbackMarksMultiPolicyDecisions(t *testing.T) {
	ctx := context.Background()
	ps := policies(core.Per(5, time.Second).Named("burst"), core.Per(100, time.Hour).Using(core.SlidingLog).Named("hour"))
	d := newDouble()
	d.down.Store(true)
	s, err := resilient.New(d, resilient.WithFallback(1))
	require.NoError(t, err)
	l, err := core.NewLimiter(s, ps, core.WithClock(clocktest.New(t0)))
	require.NoError(t, err)
	for i := range 6 {
		dec, err := l.Allow(ctx, "k")
		require.NoError(t, err)
		assert.Equal(t, i < 5, dec.Allowed, "request %d", i)
		assert.True(t, dec.Fallback, "request %d", i)
	}
}

// A resilient Store around another: the inner one's fallback answer is an
// error (standin.ErrFallback) to the outer one, which counts it as a failure
// and decides on its own fallback; when the primary is back, both close.
func TestNestedResilientStores(t *testing.T) {
	ctx := context.Background()
	ps := policies(core.Per(12, time.Minute).Using(core.FixedWindow))
	d := newDouble()
	clock := clocktest.New(t0)
	inner, err := resilient.New(d, resilient.WithFallback(2), resilient.WithFailureThreshold(1), clocktest.Option[resilient.Option](clock))
	require.NoError(t, err)
	outer, err := resilient.New(inner, resilient.WithFallback(4), resilient.WithFailureThreshold(1), clocktest.Option[resilient.Option](clock))
	require.NoError(t, err)
	l, err := core.NewLimiter(outer, ps, core.WithClock(clock))
	require.NoError(t, err)

	d.down.Store(true)
	// The outer share, 12/4 = 3, decides; the inner one's (6) would admit more.
	for i := range 3 {
		dec, err := l.Allow(ctx, "k")
		require.NoError(t, err)
		require.True(t, dec.Allowed, "request %d", i)
		require.True(t, dec.Fallback, "request %d is marked", i)
		assert.Equal(t, int64(2-i), dec.Remaining, "counted against the outer share")
	}
	dec, err := l.Allow(ctx, "k")
	require.NoError(t, err)
	assert.False(t, dec.Allowed, "the outer share is spent")
	assert.True(t, dec.Fallback)
	assert.Equal(t, resilient.Open, outer.State())
	assert.Equal(t, resilient.Open, inner.State())
	assert.Equal(t, int64(1), d.calls.Load(), "both breakers opened on the first failure")
	assert.Equal(t, int64(4), outer.Stats().Fallbacks)
	assert.Equal(t, int64(1), inner.Stats().Fallbacks, "the inner fallback answered once, unheard")

	// The primary is back: after the interval the outer probe reaches the
	// inner store, whose probe reaches the primary, and both close.
	d.down.Store(false)
	clock.Advance(resilient.DefaultOpenInterval)
	dec, err = l.Allow(ctx, "k")
	require.NoError(t, err)
	assert.True(t, dec.Allowed, "the primary's own count is fresh")
	assert.False(t, dec.Fallback, "the primary decides again")
	assert.Equal(t, int64(11), dec.Remaining)
	assert.Equal(t, resilient.Closed, outer.State())
	assert.Equal(t, resilient.Closed, inner.State())
}
