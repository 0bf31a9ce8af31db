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
// while still writing the answer). That is no store outage: fail-open must
// not pass the request, or a client could skip its limit by half-closing
// as it sends. The request is left unclassified; observe-only still passes.
func TestCancelledLookupIsNotPassedByFailOpen(t *testing.T) {
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
	for name, opt := range map[string]ratewindow.Option{"key func": byKey, "limiter func": byLimiter} {
		t.Run(name, func(t *testing.T) {
			var events []ratewindow.Event
			f, err := FromOptions(newLimiter(t, 100), []ratewindow.Option{opt,
				ratewindow.WithObserveOnlyFunc(func(r keyfuncs.Request) bool { return r.Header("X-Client") == "canary" }),
				ratewindow.WithOnDecision(func(ev ratewindow.Event) { events = append(events, ev) }),
			})
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
