package logging_test

import (
	"log/slog"
	"os"
	"time"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/resilient"
	"github.com/ratewindow/ratewindow/logging"
)

var testEpoch = time.Unix(1_700_000_000, 0)

// exampleLogger writes JSON lines without the time, so the output is
// reproducible.
func exampleLogger() *slog.Logger {
	return slog.New(slog.NewJSONHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	}))
}

// In observe-only mode the hook logs each request enforcement would have
// denied, with the key hashed; allowed requests log nothing.
func ExampleHook() {
	hook := logging.Hook(exampleLogger(), logging.WithKeySecret([]byte("example secret")))

	policy := core.PerMinute(100).Named("per-minute")
	ev := ratewindow.Event{
		Outcome: ratewindow.WouldDeny, Key: "203.0.113.9", Route: "/items/{id}", Method: "GET", Cost: 1,
		ObserveOnly: true, WouldDeny: true,
		Decision: core.Decision{Limit: 100, RetryAfter: 1500 * time.Millisecond, Policies: []core.Policy{policy}},
	}
	hook(ev)

	ev.Outcome, ev.WouldDeny, ev.Decision.Allowed = ratewindow.Allowed, false, true
	hook(ev) // nothing
	// Output:
	// {"level":"INFO","msg":"ratewindow: request would be denied (observe-only)","outcome":"would_deny","route":"/items/{id}","method":"GET","policy":"per-minute","limit":100,"remaining":0,"retry_after":1500000000,"cost":1,"key_hash":"bc4cd673c2fabc01"}
}

// Log the circuit breaker's transitions.
func ExampleBreakerStateChange() {
	onChange := logging.BreakerStateChange(exampleLogger())
	_ = resilient.WithOnStateChange(onChange) // pass it to resilient.New
	onChange(resilient.Closed, resilient.Open)
	// Output:
	// {"level":"WARN","msg":"ratewindow: circuit breaker opened, keys of the failing store (or Cluster master) fail fast","from":"closed","to":"open"}
}
