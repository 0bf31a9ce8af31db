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

// The numbers docs/failure-modes.md gives for a Store built with no breaker
// option: it opens after 5 consecutive failures, stays open 1 s, and with a
// Domainer primary forgets a domain's open breaker that no call asked for
// about ten open intervals after its open interval ends (11 s). The other
// tests name these values through constants, so they pass whatever the
// values are; this one spells them out.
func TestDocumentedDefaults(t *testing.T) {
	ctx := context.Background()
	ps := policies(core.PerSecond(1000))

	t.Run("5 failures, 1 s", func(t *testing.T) {
		d := newDouble()
		clock := clocktest.New(t0)
		s, err := resilient.New(d, clocktest.Option[resilient.Option](clock))
		require.NoError(t, err)
		d.down.Store(true)
		for i := range 4 {
			_, err := s.Take(ctx, "k", ps, 1, t0)
			require.ErrorIs(t, err, errDown, "failure %d", i+1)
			require.Equal(t, resilient.Closed, s.State(), "after %d failures", i+1)
		}
		_, err = s.Take(ctx, "k", ps, 1, t0)
		require.ErrorIs(t, err, errDown)
		require.Equal(t, resilient.Open, s.State(), "open after the 5th failure")

		clock.Advance(time.Second - time.Millisecond)
		_, err = s.Take(ctx, "k", ps, 1, t0)
		require.ErrorIs(t, err, resilient.ErrCircuitOpen, "still open just before 1 s")
		assert.Equal(t, int64(5), d.calls.Load())

		d.down.Store(false)
		clock.Advance(time.Millisecond)
		_, err = s.Take(ctx, "k", ps, 1, t0)
		require.NoError(t, err, "the probe after 1 s reaches the primary")
		assert.Equal(t, resilient.Closed, s.State())
	})

	t.Run("a stale domain is forgotten after 11 s", func(t *testing.T) {
		z := newZoned()
		clock := clocktest.New(t0)
		s, err := resilient.New(z, clocktest.Option[resilient.Option](clock))
		require.NoError(t, err)
		take := func(key string) error { _, err := s.Take(ctx, key, ps, 1, t0); return err }
		z.setDown("gone", true)
		for range 5 {
			require.ErrorIs(t, take("gone/1"), errDown)
		}
		require.Equal(t, resilient.Open, s.State())
		// Calls for another domain sweep the breakers; none for "gone".
		for sec := 1; sec <= 10; sec++ {
			clock.Advance(time.Second)
			require.NoError(t, take("b/1"))
			require.Equal(t, resilient.Open, s.State(), "%d s after it opened", sec)
		}
		clock.Advance(time.Second)
		require.NoError(t, take("b/1"))
		assert.Equal(t, resilient.Closed, s.State(), "forgotten 11 s after it opened")
	})
}
