package resilient_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/resilient"
	"github.com/ratewindow/ratewindow/internal/clocktest"
)

// The local counts outlive the outage they were made in: a primary that
// fails again within a window finds the fallback where the last outage
// left it, so a primary that flaps gives no fresh local share per outage.
// They go by the window like any count.
func TestLocalCountsOutliveTheOutage(t *testing.T) {
	ctx := context.Background()
	ps := policies(core.Per(100, time.Minute).Using(core.FixedWindow))
	d := newDouble()
	clock := clocktest.New(t0)
	s, err := resilient.New(d, resilient.WithFallback(50), resilient.WithFailureThreshold(1),
		resilient.WithOpenInterval(time.Second), clocktest.Option[resilient.Option](clock))
	require.NoError(t, err)
	l, err := core.NewLimiter(s, ps, core.WithClock(clock))
	require.NoError(t, err)
	allow := func() core.Decision {
		t.Helper()
		dec, err := l.Allow(ctx, "k")
		require.NoError(t, err)
		return dec
	}

	for outage := range 3 {
		d.down.Store(true)
		dec := allow()
		require.True(t, dec.Fallback)
		assert.Equal(t, outage < 2, dec.Allowed, "outage %d: a local share of 2 a minute, kept across outages", outage)
		d.down.Store(false)
		clock.Advance(time.Second)
		dec = allow()
		require.False(t, dec.Fallback, "the primary is back")
		require.True(t, dec.Allowed)
		require.Equal(t, resilient.Closed, s.State())
	}
	clock.Advance(time.Minute)
	d.down.Store(true)
	dec := allow()
	assert.True(t, dec.Fallback && dec.Allowed, "a new window, a new local share")
}
