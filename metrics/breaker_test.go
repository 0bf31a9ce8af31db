package metrics_test

import (
	"context"
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
