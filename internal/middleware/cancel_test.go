package middleware

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

// A key func or limiter func that honours the request's context gives up
// when the client hangs up (or half-closes, which net/http reports alike
// while still writing the answer). That is no store outage, and no request
// without a key or a limiter either: neither fail-open nor
// WithPassUnclassified (under either fail policy) may pass it, or a client
// could skip its limit by half-closing as it sends. The request is refused
// as unclassified; observe-only requests still pass.
func TestCancelledLookupIsNeverPassed(t *testing.T) {
	honours := func(r keyfuncs.Request) error {
		if err := r.Context().Err(); err != nil {
			return fmt.Errorf("lookup: %w", err)
		}
		return nil
	}
	byKey := ratewindow.WithKeyFunc(func(r keyfuncs.Request) (string, error) {
		if err := honours(r); err != nil {
			return "", err
		}
		return "user", nil
	})
	byLimiter := ratewindow.WithLimiterFunc(func(r keyfuncs.Request, _ string) (*core.Limiter, error) { return nil, honours(r) })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	policies := map[string][]ratewindow.Option{
		"fail open":                      nil,
		"pass unclassified":              {ratewindow.WithPassUnclassified()},
		"pass unclassified, fail closed": {ratewindow.WithPassUnclassified(), ratewindow.WithFailClosed()},
	}
	for name, opt := range map[string]ratewindow.Option{"key func": byKey, "limiter func": byLimiter} {
		for policy, extra := range policies {
			t.Run(name+", "+policy, func(t *testing.T) {
				var events []ratewindow.Event
				opts := append([]ratewindow.Option{opt,
					ratewindow.WithObserveOnlyFunc(func(r keyfuncs.Request) bool { return r.Header("X-Client") == "canary" }),
					ratewindow.WithOnDecision(func(ev ratewindow.Event) { events = append(events, ev) }),
				}, extra...)
				f, err := FromOptions(newLimiter(t, 100), opts)
				require.NoError(t, err)

				gone := newRecorder("a")
				gone.Ctx = ctx
				assert.False(t, f.Handle(gone), "a request its client cancelled was passed on, unlimited")
				assert.Equal(t, http.StatusBadRequest, gone.status)
				require.Len(t, events, 1)
				assert.Equal(t, ratewindow.UnclassifiedRejected, events[0].Outcome)
				assert.ErrorIs(t, events[0].Err, context.Canceled)

				canary := newRecorder("canary")
				canary.Ctx = ctx
				assert.True(t, f.Handle(canary), "observe-only requests always pass")
				assert.True(t, f.Handle(newRecorder("a")), "a live request passes")
			})
		}
	}
}
