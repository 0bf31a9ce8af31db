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

// WithPassUnclassified passes requests that have no key or no limiter. A
// request whose key func or limiter func gave up because its client
// cancelled it (or half-closed the connection) has a key that was not
// looked up, and a client must not skip its limit by half-closing as it
// sends: it is refused as unclassified, not passed, whatever the fail
// policy. Observe-only requests still pass.
func TestCancelledLookupIsNotPassedAsUnclassified(t *testing.T) {
	lookup := func(r keyfuncs.Request) error { return r.Context().Err() }
	byKey := ratewindow.WithKeyFunc(func(r keyfuncs.Request) (string, error) {
		if err := lookup(r); err != nil {
			return "", err
		}
		return "user", nil
	})
	byLimiter := ratewindow.WithLimiterFunc(func(r keyfuncs.Request, _ string) (*core.Limiter, error) { return nil, lookup(r) })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for name, opt := range map[string]ratewindow.Option{"key func": byKey, "limiter func": byLimiter} {
		for _, closed := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, fail closed %v", name, closed), func(t *testing.T) {
				var events []ratewindow.Event
				opts := []ratewindow.Option{opt, ratewindow.WithPassUnclassified(),
					ratewindow.WithObserveOnlyFunc(func(r keyfuncs.Request) bool { return r.Header("X-Client") == "canary" }),
					ratewindow.WithOnDecision(func(ev ratewindow.Event) { events = append(events, ev) }),
				}
				if closed {
					opts = append(opts, ratewindow.WithFailClosed())
				}
				f, err := FromOptions(newLimiter(t, 100), opts)
				require.NoError(t, err)

				gone := newRecorder("a")
				gone.Ctx = ctx
				assert.False(t, f.Handle(gone), "a request its client cancelled was passed on, uncounted (fail closed: %v)", closed)
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
