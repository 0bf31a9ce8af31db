package logging_test

import (
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/clocktest"
	"github.com/ratewindow/ratewindow/logging"
)

const secretKey = "sk_live_0123456789abcdef"

// decisionEvent is a request on /items/{id} decided by a 100/min policy.
func decisionEvent(o ratewindow.Outcome, remaining int64, retry time.Duration) ratewindow.Event {
	ps := []core.Policy{core.PerMinute(100).Named("per-minute")}
	ev := ratewindow.Event{Outcome: o, Key: secretKey, Route: "/items/{id}", Method: "GET", Path: "/items/42", Cost: 2}
	ev.Decision = core.Decision{Allowed: o == ratewindow.Allowed, Limit: 100, Remaining: remaining, RetryAfter: retry, Policies: ps}
	ev.WouldDeny = o == ratewindow.Denied || o == ratewindow.WouldDeny
	ev.ObserveOnly = o == ratewindow.WouldDeny
	ev.Latency = 3 * time.Millisecond
	return ev
}

// fallbackEvent is decisionEvent made by core/resilient's local fallback.
func fallbackEvent(o ratewindow.Outcome, remaining int64, retry time.Duration) ratewindow.Event {
	ev := decisionEvent(o, remaining, retry)
	ev.Decision.Fallback = true
	return ev
}

func failureEvent(o ratewindow.Outcome) ratewindow.Event {
	return ratewindow.Event{
		Outcome: o, Key: secretKey, Route: "/items/{id}", Method: "POST", Path: "/items/42", Cost: 1,
		Err: errDown, FailedOpen: o == ratewindow.StoreErrorPassed, Latency: 5 * time.Millisecond,
	}
}

func unclassifiedEvent(o ratewindow.Outcome) ratewindow.Event {
	return ratewindow.Event{
		Outcome: o, Key: secretKey, Route: "/items/{id}", Method: "POST", Path: "/items/42", Cost: 10000,
		Err: core.ErrInvalidCost,
	}
}

var hexHash = regexp.MustCompile(`^[0-9a-f]{16}$`)

func TestHookByOutcome(t *testing.T) {
	tests := []struct {
		name  string
		ev    ratewindow.Event
		opts  []logging.Option
		level string // "" when nothing is logged
		msg   string
		attrs map[string]any
	}{
		{name: "allowed", ev: decisionEvent(ratewindow.Allowed, 10, 0)},
		{name: "allowed observe-only", ev: func() ratewindow.Event {
			ev := decisionEvent(ratewindow.Allowed, 10, 0)
			ev.ObserveOnly = true
			return ev
		}()},
		{name: "skipped", ev: ratewindow.Event{Outcome: ratewindow.Skipped, Route: "/healthz"}},
		{name: "denied, by default", ev: decisionEvent(ratewindow.Denied, 0, 1500*time.Millisecond)},
		{
			name: "denied with WithDenials", ev: decisionEvent(ratewindow.Denied, 0, 1500*time.Millisecond),
			opts: []logging.Option{logging.WithDenials()}, level: "INFO", msg: logging.MsgDenied,
			attrs: map[string]any{
				"outcome": "denied", "route": "/items/{id}", "method": "GET", "policy": "per-minute",
				"limit": 100.0, "remaining": 0.0, "retry_after": float64(1500 * time.Millisecond), "cost": 2.0,
			},
		},
		{
			name: "would deny", ev: decisionEvent(ratewindow.WouldDeny, 0, 2*time.Second),
			level: "INFO", msg: logging.MsgWouldDeny,
			attrs: map[string]any{
				"outcome": "would_deny", "route": "/items/{id}", "method": "GET", "policy": "per-minute",
				"limit": 100.0, "remaining": 0.0, "retry_after": float64(2 * time.Second), "cost": 2.0,
			},
		},
		{
			name: "denied by the local fallback", ev: func() ratewindow.Event {
				ev := decisionEvent(ratewindow.Denied, 0, 1500*time.Millisecond)
				ev.Decision.Fallback = true
				return ev
			}(),
			opts: []logging.Option{logging.WithDenials()}, level: "INFO", msg: logging.MsgDenied,
			attrs: map[string]any{"outcome": "denied", "policy": "per-minute", "fallback": true},
		},
		{
			// A store call that failed behind core/resilient's fallback
			// is a decision, not an error: it is logged as what it
			// tells, a failing store.
			name: "allowed by the local fallback", ev: fallbackEvent(ratewindow.Allowed, 9, 0),
			level: "WARN", msg: logging.MsgFallback,
			attrs: map[string]any{
				"outcome": "allowed", "route": "/items/{id}", "method": "GET", "policy": "per-minute",
				"limit": 100.0, "remaining": 9.0, "cost": 2.0, "fallback": true,
			},
		},
		{
			name: "denied by the local fallback, by default", ev: fallbackEvent(ratewindow.Denied, 0, time.Second),
			level: "WARN", msg: logging.MsgFallback,
			attrs: map[string]any{"outcome": "denied", "policy": "per-minute", "fallback": true},
		},
		{
			name: "would deny by the local fallback", ev: fallbackEvent(ratewindow.WouldDeny, 0, time.Second),
			level: "INFO", msg: logging.MsgWouldDeny,
			attrs: map[string]any{"outcome": "would_deny", "fallback": true},
		},
		{
			name: "store error, fail open", ev: failureEvent(ratewindow.StoreErrorPassed),
			level: "WARN", msg: logging.MsgFailedPassed,
			attrs: map[string]any{
				"err": errDown.Error(), "outcome": "store_error_passed", "route": "/items/{id}", "method": "POST",
				"fail": "open", "observe_only": false, "latency": float64(5 * time.Millisecond),
			},
		},
		{
			name: "store error, fail closed", ev: failureEvent(ratewindow.StoreErrorRejected),
			level: "ERROR", msg: logging.MsgFailedRejected,
			attrs: map[string]any{
				"err": errDown.Error(), "outcome": "store_error_rejected", "route": "/items/{id}", "method": "POST",
				"fail": "closed", "observe_only": false, "latency": float64(5 * time.Millisecond),
			},
		},
		{
			name: "unclassified, rejected", ev: unclassifiedEvent(ratewindow.UnclassifiedRejected),
			level: "INFO", msg: logging.MsgUnclassifiedRejected,
			attrs: map[string]any{
				"err": core.ErrInvalidCost.Error(), "outcome": "unclassified_rejected", "route": "/items/{id}",
				"method": "POST", "observe_only": false, "cost": 10000.0, "fail": nil,
			},
		},
		{
			// A mistake in the set-up, not the client's: every such
			// request is rejected until it is mended.
			name: "unclassified for a set-up mistake, rejected", ev: func() ratewindow.Event {
				ev := unclassifiedEvent(ratewindow.UnclassifiedRejected)
				ev.Err = fmt.Errorf("%w: %w: keyfuncs: Header: bad name", ratewindow.ErrNoLimiter, core.ErrInvalidConfig)
				return ev
			}(),
			level: "ERROR", msg: logging.MsgUnclassifiedRejected,
			attrs: map[string]any{"outcome": "unclassified_rejected", "fail": nil},
		},
		{
			name: "unclassified, passed", ev: unclassifiedEvent(ratewindow.UnclassifiedPassed),
			level: "WARN", msg: logging.MsgUnclassifiedPassed,
			attrs: map[string]any{"outcome": "unclassified_passed", "cost": 10000.0},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logger, buf := jsonLogger(slog.LevelDebug)
			logging.Hook(logger, tt.opts...)(tt.ev)
			recs := records(t, buf)
			if tt.level == "" {
				assert.Empty(t, recs)
				return
			}
			require.Len(t, recs, 1)
			r := recs[0]
			assert.Equal(t, tt.level, r["level"])
			assert.Equal(t, tt.msg, r["msg"])
			for k, v := range tt.attrs {
				assert.Equal(t, v, r[k], k)
			}
			if _, ok := tt.attrs["fallback"]; !ok {
				assert.NotContains(t, r, "fallback", "only fallback decisions say so")
			}
			assert.Regexp(t, hexHash, r["key_hash"])
			assert.NotContains(t, r, "key")
			assert.NotContains(t, r, "path")
			assert.NotContains(t, buf.String(), secretKey)
			assert.NotContains(t, buf.String(), "/items/42")
		})
	}
}

func TestHookKeyModes(t *testing.T) {
	ev := decisionEvent(ratewindow.WouldDeny, 0, time.Second)
	logOnce := func(opts ...logging.Option) map[string]any {
		logger, buf := jsonLogger(slog.LevelInfo)
		logging.Hook(logger, opts...)(ev)
		recs := records(t, buf)
		require.Len(t, recs, 1)
		return recs[0]
	}

	omitted := logOnce(logging.WithoutKeys())
	assert.NotContains(t, omitted, "key")
	assert.NotContains(t, omitted, "key_hash")

	raw := logOnce(logging.WithRawKeys())
	assert.Equal(t, secretKey, raw["key"])
	assert.NotContains(t, raw, "key_hash")

	// With a shared secret two hooks (two instances) hash alike; without
	// one each hook draws its own.
	secret := logging.WithKeySecret([]byte("shared secret"))
	a, b := logOnce(secret)["key_hash"], logOnce(secret)["key_hash"]
	assert.Regexp(t, hexHash, a)
	assert.Equal(t, a, b)
	assert.NotEqual(t, logOnce()["key_hash"], logOnce()["key_hash"])
	other := decisionEvent(ratewindow.WouldDeny, 0, time.Second)
	other.Key = "203.0.113.9"
	logger, buf := jsonLogger(slog.LevelInfo)
	logging.Hook(logger, secret)(other)
	assert.NotEqual(t, a, records(t, buf)[0]["key_hash"])

	// No key (the key func failed): no key attribute at all.
	logger, buf = jsonLogger(slog.LevelInfo)
	noKey := failureEvent(ratewindow.StoreErrorPassed)
	noKey.Key = ""
	logging.Hook(logger)(noKey)
	assert.NotContains(t, records(t, buf)[0], "key_hash")
}

func TestHookErrorEvery(t *testing.T) {
	clock := clocktest.New(time.Unix(1_700_000_000, 0))
	logger, buf := jsonLogger(slog.LevelDebug)
	hook := logging.Hook(logger, logging.WithErrorEvery(time.Second), clocktest.Option[logging.Option](clock))

	for range 5 {
		hook(failureEvent(ratewindow.StoreErrorPassed))
	}
	hook(failureEvent(ratewindow.StoreErrorRejected)) // its own interval
	clock.Advance(999 * time.Millisecond)
	hook(failureEvent(ratewindow.StoreErrorPassed))
	clock.Advance(time.Millisecond)
	hook(failureEvent(ratewindow.StoreErrorPassed))
	hook(decisionEvent(ratewindow.WouldDeny, 0, time.Second)) // its own throttle

	recs := records(t, buf)
	require.Len(t, recs, 4)
	assert.Equal(t, logging.MsgFailedPassed, recs[0]["msg"])
	assert.NotContains(t, recs[0], "suppressed")
	assert.Equal(t, logging.MsgFailedRejected, recs[1]["msg"])
	assert.Equal(t, logging.MsgFailedPassed, recs[2]["msg"])
	assert.Equal(t, 5.0, recs[2]["suppressed"])
	assert.Equal(t, logging.MsgWouldDeny, recs[3]["msg"])
}

// A wall clock stepped back (an NTP correction, a resumed VM) must not
// hold failure records back for as long as the step.
func TestHookErrorEveryClockStepBack(t *testing.T) {
	clock := clocktest.New(time.Unix(1_700_000_000, 0))
	logger, buf := jsonLogger(slog.LevelDebug)
	hook := logging.Hook(logger, logging.WithErrorEvery(time.Second), clocktest.Option[logging.Option](clock))

	hook(failureEvent(ratewindow.StoreErrorPassed))
	clock.Advance(-time.Hour)
	hook(failureEvent(ratewindow.StoreErrorPassed))
	clock.Advance(500 * time.Millisecond)
	hook(failureEvent(ratewindow.StoreErrorPassed)) // within the interval again
	clock.Advance(time.Second)
	hook(failureEvent(ratewindow.StoreErrorPassed))

	recs := records(t, buf)
	require.Len(t, recs, 3)
	assert.NotContains(t, recs[1], "suppressed")
	assert.Equal(t, 1.0, recs[2]["suppressed"])
}

func TestHookHonoursLoggerLevel(t *testing.T) {
	logger, buf := jsonLogger(slog.LevelError)
	hook := logging.Hook(logger, logging.WithDenials())
	hook(decisionEvent(ratewindow.WouldDeny, 0, time.Second))
	hook(decisionEvent(ratewindow.Denied, 0, time.Second))
	hook(failureEvent(ratewindow.StoreErrorPassed))
	hook(failureEvent(ratewindow.StoreErrorRejected))
	recs := records(t, buf)
	require.Len(t, recs, 1)
	assert.Equal(t, "ERROR", recs[0]["level"])
}

func TestHookNilLoggerUsesDefault(t *testing.T) {
	logger, buf := jsonLogger(slog.LevelInfo)
	old := slog.Default()
	slog.SetDefault(logger)
	t.Cleanup(func() { slog.SetDefault(old) })
	logging.Hook(nil)(decisionEvent(ratewindow.WouldDeny, 0, time.Second))
	assert.True(t, strings.Contains(buf.String(), logging.MsgWouldDeny))
}

func TestHookUnloggedEventsDoNotAllocate(t *testing.T) {
	logger, _ := jsonLogger(slog.LevelDebug)
	hook := logging.Hook(logger)
	allowed := decisionEvent(ratewindow.Allowed, 10, 0)
	denied := decisionEvent(ratewindow.Denied, 0, time.Second)
	skipped := ratewindow.Event{Outcome: ratewindow.Skipped, Route: "/healthz"}
	allocs := testing.AllocsPerRun(200, func() {
		hook(allowed)
		hook(denied)
		hook(skipped)
	})
	assert.Zero(t, allocs)
}

// Failures from many goroutines at one instant: one record, and the next
// one counts every failure held back.
func TestHookErrorEveryConcurrently(t *testing.T) {
	const workers, each = 4, 50
	clock := clocktest.New(time.Unix(1_700_000_000, 0))
	logger, buf := jsonLogger(slog.LevelDebug)
	hook := logging.Hook(logger, logging.WithErrorEvery(time.Minute), clocktest.Option[logging.Option](clock))
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range each {
				hook(failureEvent(ratewindow.StoreErrorPassed))
			}
		})
	}
	wg.Wait()
	clock.Advance(time.Minute)
	hook(failureEvent(ratewindow.StoreErrorPassed))

	recs := records(t, buf)
	require.Len(t, recs, 2)
	assert.Equal(t, float64(workers*each-1), recs[1]["suppressed"])
}
