package metrics_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/resilient"
	"github.com/ratewindow/ratewindow/internal/clocktest"
	"github.com/ratewindow/ratewindow/metrics"
)

func TestBreakerStateChanged(t *testing.T) {
	tests := []struct {
		from, to resilient.State
		want     float64
	}{
		{resilient.Closed, resilient.Open, metrics.BreakerOpen},
		{resilient.Open, resilient.HalfOpen, metrics.BreakerHalfOpen},
		{resilient.HalfOpen, resilient.Closed, metrics.BreakerClosed},
		{resilient.HalfOpen, resilient.Open, metrics.BreakerOpen},
		{resilient.Open, resilient.State(42), metrics.BreakerOpen}, // unknown: unchanged
	}
	c, err := metrics.New()
	require.NoError(t, err)
	assert.Equal(t, float64(metrics.BreakerClosed), breakerGauge(t, c), "before any change")
	for _, tt := range tests {
		c.BreakerStateChanged(tt.from, tt.to)
		assert.Equal(t, tt.want, breakerGauge(t, c), "%v -> %v", tt.from, tt.to)
	}
}

// The gauge follows a real breaker through open, half-open and closed.
func TestBreakerGaugeFollowsResilientStore(t *testing.T) {
	c, err := metrics.New()
	require.NoError(t, err)
	clock := clocktest.New(time.Unix(1_700_000_000, 0))
	primary := newStoreDouble()
	var seen []float64
	store, err := resilient.New(primary,
		resilient.WithFailureThreshold(1),
		resilient.WithOpenInterval(time.Second),
		clocktest.Option[resilient.Option](clock),
		resilient.WithOnStateChange(func(from, to resilient.State) {
			c.BreakerStateChanged(from, to)
			seen = append(seen, breakerGauge(t, c))
		}))
	require.NoError(t, err)
	l, err := core.NewLimiter(store, []core.Policy{core.PerMinute(10)}, core.WithClock(clock))
	require.NoError(t, err)
	ctx := context.Background()

	primary.down.Store(true)
	_, err = l.Allow(ctx, "k")
	require.Error(t, err)
	assert.Equal(t, float64(metrics.BreakerOpen), breakerGauge(t, c))

	primary.down.Store(false)
	clock.Advance(time.Second)
	_, err = l.Allow(ctx, "k")
	require.NoError(t, err)
	assert.Equal(t, float64(metrics.BreakerClosed), breakerGauge(t, c))
	assert.Equal(t, []float64{metrics.BreakerOpen, metrics.BreakerHalfOpen, metrics.BreakerClosed}, seen)
}

// Two stores, each with its own breaker, report to one Collector: the gauge
// reads the worst of them, so store B closing does not hide that store A
// is still open.
func TestBreakerGaugeWorstOfSeveralStores(t *testing.T) {
	c, err := metrics.New()
	require.NoError(t, err)
	clock := clocktest.New(time.Unix(1_700_000_000, 0))
	newLimiter := func(primary *storeDouble) *core.Limiter {
		store, err := resilient.New(primary,
			resilient.WithFailureThreshold(1),
			resilient.WithOpenInterval(time.Second),
			clocktest.Option[resilient.Option](clock),
			resilient.WithOnStateChange(c.BreakerStateChanged))
		require.NoError(t, err)
		l, err := core.NewLimiter(store, []core.Policy{core.PerMinute(10)}, core.WithClock(clock))
		require.NoError(t, err)
		return l
	}
	primaryA, primaryB := newStoreDouble(), newStoreDouble()
	a, b := newLimiter(primaryA), newLimiter(primaryB)
	ctx := context.Background()

	primaryA.down.Store(true)
	_, err = a.Allow(ctx, "k")
	require.Error(t, err)
	assert.Equal(t, float64(metrics.BreakerOpen), breakerGauge(t, c), "A open")

	primaryB.down.Store(true)
	_, err = b.Allow(ctx, "k")
	require.Error(t, err)
	assert.Equal(t, float64(metrics.BreakerOpen), breakerGauge(t, c), "A and B open")

	// B recovers: its probe closes its breaker. A is still open (its
	// interval has passed, but no call has probed it).
	primaryB.down.Store(false)
	clock.Advance(time.Second)
	_, err = b.Allow(ctx, "k")
	require.NoError(t, err)
	assert.Equal(t, float64(metrics.BreakerOpen), breakerGauge(t, c), "A open, B closed")

	// A's probe fails: A opens again, and stays the worst.
	_, err = a.Allow(ctx, "k")
	require.Error(t, err)
	assert.Equal(t, float64(metrics.BreakerOpen), breakerGauge(t, c), "A reopened, B closed")

	primaryA.down.Store(false)
	clock.Advance(time.Second)
	_, err = a.Allow(ctx, "k")
	require.NoError(t, err)
	assert.Equal(t, float64(metrics.BreakerClosed), breakerGauge(t, c), "both closed")
}

// Breakers changing state concurrently leave the gauge at the worst state
// of those left: here one stays open, then none.
func TestBreakerGaugeConcurrentBreakers(t *testing.T) {
	c, err := metrics.New()
	require.NoError(t, err)
	cycle := [][2]resilient.State{
		{resilient.Closed, resilient.Open},
		{resilient.Open, resilient.HalfOpen},
		{resilient.HalfOpen, resilient.Open},
		{resilient.Open, resilient.HalfOpen},
		{resilient.HalfOpen, resilient.Closed},
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				for _, tr := range cycle {
					c.BreakerStateChanged(tr[0], tr[1])
				}
			}
			if g == 0 {
				c.BreakerStateChanged(resilient.Closed, resilient.Open)
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, float64(metrics.BreakerOpen), breakerGauge(t, c))
	c.BreakerStateChanged(resilient.Open, resilient.Closed) // forgotten, as resilient does for a gone domain
	assert.Equal(t, float64(metrics.BreakerClosed), breakerGauge(t, c))
}

// The breaker moves only when a call comes in: an instance that gets no
// call after a blip opened its breaker keeps reading Open, State and gauge
// alike, however long the store has been fine, until its next call probes
// the store and closes it. The gauge is the state as of the last call;
// the RateWindowCircuitBreakerOpen alert (deploy/) therefore also asks for
// requests decided by the fallback or failing, so an idle instance does
// not page.
func TestBreakerGaugeIsTheStateAsOfTheLastCall(t *testing.T) {
	c, err := metrics.New()
	require.NoError(t, err)
	clock := clocktest.New(time.Unix(1_700_000_000, 0))
	primary := newStoreDouble()
	store, err := resilient.New(primary,
		resilient.WithFailureThreshold(1),
		resilient.WithOpenInterval(time.Second),
		clocktest.Option[resilient.Option](clock),
		resilient.WithOnStateChange(c.BreakerStateChanged))
	require.NoError(t, err)
	l, err := core.NewLimiter(store, []core.Policy{core.PerMinute(10)}, core.WithClock(clock))
	require.NoError(t, err)
	ctx := context.Background()

	primary.down.Store(true)
	_, err = l.Allow(ctx, "k")
	require.Error(t, err)
	primary.down.Store(false)
	clock.Advance(time.Hour) // idle: no call for 3600 open intervals
	assert.Equal(t, resilient.Open, store.State())
	assert.Equal(t, float64(metrics.BreakerOpen), breakerGauge(t, c))
	assert.Equal(t, int64(1), primary.calls.Load(), "nothing called the store meanwhile")

	_, err = l.Allow(ctx, "k")
	require.NoError(t, err)
	assert.Equal(t, resilient.Closed, store.State())
	assert.Equal(t, float64(metrics.BreakerClosed), breakerGauge(t, c))
}
