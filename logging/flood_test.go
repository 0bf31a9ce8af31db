package logging_test

import (
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/clocktest"
	"github.com/ratewindow/ratewindow/logging"
)

// A client flooding an observe-only route (or, with WithDenials, an
// enforced one) must not make the server write a record per request: by
// default one record per outcome per second, the next one counting those
// held back.
func TestHookDenialFloodThrottled(t *testing.T) {
	const flood = 1000
	clock := clocktest.New(time.Unix(1_700_000_000, 0))
	logger, buf := jsonLogger(slog.LevelDebug)
	hook := logging.Hook(logger, logging.WithDenials(), clocktest.Option[logging.Option](clock))

	for range flood {
		hook(decisionEvent(ratewindow.WouldDeny, 0, time.Second))
		hook(decisionEvent(ratewindow.Denied, 0, time.Second))
	}
	clock.Advance(999 * time.Millisecond)
	hook(decisionEvent(ratewindow.WouldDeny, 0, time.Second))
	clock.Advance(time.Millisecond)
	hook(decisionEvent(ratewindow.WouldDeny, 0, time.Second))
	hook(decisionEvent(ratewindow.Denied, 0, time.Second))

	recs := records(t, buf)
	require.Equal(t, 4, len(recs), "records")
	assert.Equal(t, logging.MsgWouldDeny, recs[0]["msg"])
	assert.NotContains(t, recs[0], "suppressed")
	assert.Equal(t, logging.MsgDenied, recs[1]["msg"])
	assert.NotContains(t, recs[1], "suppressed")
	assert.Equal(t, logging.MsgWouldDeny, recs[2]["msg"])
	assert.Equal(t, float64(flood), recs[2]["suppressed"])
	assert.Equal(t, logging.MsgDenied, recs[3]["msg"])
	assert.Equal(t, float64(flood-1), recs[3]["suppressed"])
}

// WithDenialEvery sets the interval; zero logs every record.
func TestHookDenialEvery(t *testing.T) {
	clock := clocktest.New(time.Unix(1_700_000_000, 0))
	logger, buf := jsonLogger(slog.LevelDebug)
	every := logging.Hook(logger, logging.WithDenials(), logging.WithDenialEvery(0), clocktest.Option[logging.Option](clock))
	for range 10 {
		every(decisionEvent(ratewindow.WouldDeny, 0, time.Second))
		every(decisionEvent(ratewindow.Denied, 0, time.Second))
	}
	recs := records(t, buf)
	require.Len(t, recs, 20)
	for _, r := range recs {
		assert.NotContains(t, r, "suppressed")
	}

	buf.Reset()
	minute := logging.Hook(logger, logging.WithDenialEvery(time.Minute), clocktest.Option[logging.Option](clock))
	for range 10 {
		minute(decisionEvent(ratewindow.WouldDeny, 0, time.Second))
		clock.Advance(time.Second)
	}
	clock.Advance(time.Minute)
	minute(decisionEvent(ratewindow.WouldDeny, 0, time.Second))
	recs = records(t, buf)
	require.Len(t, recs, 2)
	assert.Equal(t, 9.0, recs[1]["suppressed"])
}

// A client decides too whether its requests can be classified (a request
// without the header its key comes from, say): a flood of them is
// throttled like denials, by default, each outcome on its own.
func TestHookUnclassifiedFloodThrottled(t *testing.T) {
	const flood = 1000
	clock := clocktest.New(time.Unix(1_700_000_000, 0))
	logger, buf := jsonLogger(slog.LevelDebug)
	hook := logging.Hook(logger, clocktest.Option[logging.Option](clock))

	for range flood {
		hook(unclassifiedEvent(ratewindow.UnclassifiedRejected))
		hook(unclassifiedEvent(ratewindow.UnclassifiedPassed))
	}
	clock.Advance(time.Second)
	hook(unclassifiedEvent(ratewindow.UnclassifiedRejected))
	hook(unclassifiedEvent(ratewindow.UnclassifiedPassed))

	recs := records(t, buf)
	require.Equal(t, 4, len(recs), "records")
	assert.Equal(t, logging.MsgUnclassifiedRejected, recs[0]["msg"])
	assert.Equal(t, logging.MsgUnclassifiedPassed, recs[1]["msg"])
	assert.Equal(t, logging.MsgUnclassifiedRejected, recs[2]["msg"])
	assert.Equal(t, float64(flood-1), recs[2]["suppressed"])
	assert.Equal(t, logging.MsgUnclassifiedPassed, recs[3]["msg"])
	assert.Equal(t, float64(flood-1), recs[3]["suppressed"])
}

// A record held back by the throttle costs no allocation: a flood costs a
// clock read and a short lock per request, and the timer that writes the
// last interval's count is armed once per interval, not per request.
func TestHookHeldBackRecordsDoNotAllocate(t *testing.T) {
	clocks := map[string]core.Clock{"without timers": clocktest.New(testEpoch), "with timers": newTimerClock()}
	for name, clock := range clocks {
		t.Run(name, func(t *testing.T) {
			logger, _ := jsonLogger(slog.LevelDebug)
			hook := logging.Hook(logger, logging.WithDenials(), clocktest.Option[logging.Option](clock))
			wouldDeny := decisionEvent(ratewindow.WouldDeny, 0, time.Second)
			denied := decisionEvent(ratewindow.Denied, 0, time.Second)
			unclassified := unclassifiedEvent(ratewindow.UnclassifiedRejected)
			for range 2 { // written, then held back: the timers are armed
				hook(wouldDeny)
				hook(denied)
				hook(unclassified)
			}
			allocs := testing.AllocsPerRun(200, func() {
				hook(wouldDeny)
				hook(denied)
				hook(unclassified)
			})
			assert.Zero(t, allocs)
		})
	}
}

// During a store outage every request fails: by default the hook writes
// one failure record per outcome per second, not one per request, the
// next one counting those held back; WithErrorEvery(0) logs every one.
func TestHookFailureFloodThrottledByDefault(t *testing.T) {
	const flood = 1000
	clock := clocktest.New(time.Unix(1_700_000_000, 0))
	logger, buf := jsonLogger(slog.LevelDebug)
	hook := logging.Hook(logger, clocktest.Option[logging.Option](clock))
	for range flood {
		hook(failureEvent(ratewindow.StoreErrorPassed))
		hook(failureEvent(ratewindow.StoreErrorRejected))
	}
	clock.Advance(time.Second)
	hook(failureEvent(ratewindow.StoreErrorPassed))

	recs := records(t, buf)
	require.Len(t, recs, 3, "records")
	assert.NotContains(t, recs[0], "suppressed")
	assert.NotContains(t, recs[1], "suppressed")
	assert.Equal(t, float64(flood-1), recs[2]["suppressed"])

	buf.Reset()
	every := logging.Hook(logger, logging.WithErrorEvery(0), clocktest.Option[logging.Option](clock))
	for range 10 {
		every(failureEvent(ratewindow.StoreErrorPassed))
	}
	assert.Len(t, records(t, buf), 10)
}

// A store that fails behind core/resilient's fallback makes fallback
// decisions, one per request during an outage: one record per second
// (WithErrorEvery) for each outcome, the next counting those held back,
// on throttles of their own.
func TestHookFallbackFloodThrottled(t *testing.T) {
	const flood = 1000
	clock := clocktest.New(time.Unix(1_700_000_000, 0))
	logger, buf := jsonLogger(slog.LevelDebug)
	hook := logging.Hook(logger, clocktest.Option[logging.Option](clock))
	for i := range flood {
		if i%2 == 0 {
			hook(fallbackEvent(ratewindow.Allowed, 5, 0))
		} else {
			hook(fallbackEvent(ratewindow.Denied, 0, time.Second))
		}
	}
	hook(failureEvent(ratewindow.StoreErrorPassed)) // its own throttle
	clock.Advance(time.Second)
	hook(fallbackEvent(ratewindow.Allowed, 4, 0))

	recs := records(t, buf)
	require.Len(t, recs, 4, "records")
	for i, want := range []string{"allowed", "denied"} {
		assert.Equal(t, logging.MsgFallback, recs[i]["msg"])
		assert.Equal(t, want, recs[i]["outcome"])
		assert.NotContains(t, recs[i], "suppressed")
	}
	assert.Equal(t, logging.MsgFailedPassed, recs[2]["msg"])
	assert.Equal(t, logging.MsgFallback, recs[3]["msg"])
	assert.Equal(t, "allowed", recs[3]["outcome"])
	assert.Equal(t, float64(flood/2-1), recs[3]["suppressed"])
}
