package resilient_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/resilient"
)

// A call its own caller cancelled is returned as it is, fallback or not:
// the primary is healthy, so it is no fallback decision (no WithOnFallback
// call, no fallback counted, nothing charged to the local share), whether
// the caller left before the primary was asked or while it was.
func TestCancelledCallIsNotAFallbackDecision(t *testing.T) {
	for _, tt := range []struct {
		name  string
		block bool // the primary waits until the caller leaves
	}{
		{"cancelled before the call", false},
		{"cancelled during the call", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ps := policies(core.Per(1, time.Minute).Using(core.FixedWindow))
			d := newDouble()
			d.block.Store(tt.block)
			var fallbacks atomic.Int64
			s, err := resilient.New(d, resilient.WithFallback(1),
				resilient.WithOnFallback(func(string, error) { fallbacks.Add(1) }))
			require.NoError(t, err)

			for range 3 {
				ctx, cancel := context.WithCancel(context.Background())
				if tt.block {
					time.AfterFunc(time.Millisecond, cancel)
				} else {
					cancel()
				}
				_, err := s.Take(ctx, "k", ps, 1, t0)
				cancel()
				require.ErrorIs(t, err, context.Canceled)
			}
			assert.Zero(t, fallbacks.Load(), "no fallback decision for a healthy primary")
			assert.Zero(t, s.Stats().Fallbacks)
			assert.Equal(t, resilient.Closed, s.State())

			// The local share was not spent: a fallback decision now
			// (the primary down) admits the one request of the minute.
			d.block.Store(false)
			d.down.Store(true)
			r, _ := s.Take(context.Background(), "k", ps, 1, t0)
			assert.True(t, r.States[0].Allowed, "the local share is whole")
		})
	}
}
