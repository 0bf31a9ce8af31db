package logging_test

import (
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/internal/clocktest"
	"github.com/ratewindow/ratewindow/logging"
)

// When a flood ends, the records held back in its last interval are not
// lost: at the end of the interval the first of them is written, counting
// the others in "suppressed", though no other record of that outcome
// comes. Then nothing more is written and no timer stays armed.
func TestHookWritesLastIntervalsCount(t *testing.T) {
	const flood = 1000
	clock := newTimerClock()
	logger, buf := jsonLogger(slog.LevelDebug)
	hook := logging.Hook(logger, logging.WithDenials(), clocktest.Option[logging.Option](clock))

	for range flood {
		hook(decisionEvent(ratewindow.WouldDeny, 0, time.Second))
		hook(failureEvent(ratewindow.StoreErrorRejected))
	}
	hook(decisionEvent(ratewindow.Denied, 0, time.Second)) // one only: nothing held back
	require.Len(t, records(t, buf), 3, "one record per outcome during the interval")

	clock.Advance(time.Second)
	recs := records(t, buf)
	require.Len(t, recs, 5, "the held-back counts, once the interval ends")
	byMsg := map[any]map[string]any{}
	for _, r := range recs[3:] {
		byMsg[r["msg"]] = r
	}
	require.Contains(t, byMsg, logging.MsgWouldDeny)
	require.Contains(t, byMsg, logging.MsgFailedRejected)
	// The record written is a held-back one, the others are counted:
	// 1 + 1 + (flood-2) requests in all.
	assert.Equal(t, float64(flood-2), byMsg[logging.MsgWouldDeny]["suppressed"])
	assert.Equal(t, "/items/{id}", byMsg[logging.MsgWouldDeny]["route"])
	assert.Equal(t, "per-minute", byMsg[logging.MsgWouldDeny]["policy"])
	assert.Equal(t, float64(flood-2), byMsg[logging.MsgFailedRejected]["suppressed"])
	assert.Equal(t, "closed", byMsg[logging.MsgFailedRejected]["fail"])
	assert.Equal(t, "ERROR", byMsg[logging.MsgFailedRejected]["level"])

	clock.Advance(time.Hour)
	assert.Len(t, records(t, buf), 5, "nothing more to write")
	assert.Zero(t, clock.pending(), "no timer left armed")

	// The interval starts again from the record the timer wrote.
	hook(decisionEvent(ratewindow.WouldDeny, 0, time.Second))
	recs = records(t, buf)
	require.Len(t, recs, 6)
	assert.NotContains(t, recs[5], "suppressed")
}

// Under a sustained flood the hook writes one record per interval for
// each outcome, whether the timer or a request ends the interval, and
// every request is either written or counted.
func TestHookSustainedFloodCountsEveryRequest(t *testing.T) {
	clock := newTimerClock()
	logger, buf := jsonLogger(slog.LevelDebug)
	hook := logging.Hook(logger, clocktest.Option[logging.Option](clock))

	const requests = 730 // every 7 ms for 5.11 s
	for range requests {
		hook(decisionEvent(ratewindow.WouldDeny, 0, time.Second))
		clock.Advance(7 * time.Millisecond)
	}
	clock.Advance(time.Second)
	recs := records(t, buf)
	total := len(recs)
	for _, r := range recs {
		if n, ok := r["suppressed"].(float64); ok {
			total += int(n)
		}
	}
	assert.Equal(t, requests, total, "written plus suppressed")
	assert.LessOrEqual(t, len(recs), 7, "about one record per second")
	assert.Zero(t, clock.pending())
}

// A record that comes after the interval ends, before the timer runs,
// carries the count itself; the timer then finds the new interval open
// and waits for its end instead of writing a second record in it.
func TestHookRecordBeatsTimer(t *testing.T) {
	clock := newTimerClock()
	logger, buf := jsonLogger(slog.LevelDebug)
	hook := logging.Hook(logger, clocktest.Option[logging.Option](clock))
	ev := failureEvent(ratewindow.StoreErrorPassed)

	hook(ev)                                    // written
	clock.Clock.Advance(500 * time.Millisecond) // the timer does not run
	hook(ev)                                    // held back, timer armed for +1s
	clock.Clock.Advance(500 * time.Millisecond)
	hook(ev) // the interval has ended: written, suppressed=1
	clock.Clock.Advance(200 * time.Millisecond)
	hook(ev)     // held back in the new interval
	clock.fire() // the first timer, late: the new interval is open
	recs := records(t, buf)
	require.Len(t, recs, 2)
	assert.Equal(t, 1.0, recs[1]["suppressed"])

	clock.Advance(800 * time.Millisecond) // the new interval ends
	recs = records(t, buf)
	require.Len(t, recs, 3)
	assert.NotContains(t, recs[2], "suppressed", "the record written is the one held back")
	assert.Zero(t, clock.pending())
}

// On the wall clock, with real timers: the count of a flood's last
// interval is written a little after the interval ends.
func TestHookWritesLastIntervalsCountOnWallClock(t *testing.T) {
	var buf syncBuffer
	logger := slog.New(slog.NewJSONHandler(&buf, nil))
	hook := logging.Hook(logger, logging.WithErrorEvery(20*time.Millisecond))
	for range 100 {
		hook(failureEvent(ratewindow.StoreErrorPassed))
	}
	require.Eventually(t, func() bool {
		return len(records(t, buf.snapshot())) == 2
	}, 5*time.Second, 10*time.Millisecond, "the last interval's count")
	recs := records(t, buf.snapshot())
	total := 2
	for _, r := range recs {
		if n, ok := r["suppressed"].(float64); ok {
			total += int(n)
		}
	}
	assert.Equal(t, 100, total)
}
