package logging_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/clocktest"
)

// jsonLogger returns a logger writing JSON lines at level and above into
// the returned buffer.
func jsonLogger(level slog.Level) (*slog.Logger, *bytes.Buffer) {
	var buf bytes.Buffer
	return slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: level})), &buf
}

// records parses the JSON lines of buf.
func records(t *testing.T, buf *bytes.Buffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var r map[string]any
		require.NoError(t, json.Unmarshal(line, &r), "%s", line)
		out = append(out, r)
	}
	return out
}

var errDown = errors.New("test store: down")

// downStore is a core.Store that always fails.
type downStore struct{}

func (downStore) Take(context.Context, string, []core.Policy, int64, time.Time) (core.Result, error) {
	return core.Result{}, errDown
}

func (downStore) Peek(context.Context, string, []core.Policy, int64, time.Time) (core.Result, error) {
	return core.Result{}, errDown
}

func (downStore) Reset(context.Context, string, []core.Policy) error { return errDown }

// timerClock is a fake clock that also runs timers: a func given to
// AfterFunc runs when Advance moves the clock to or past its time.
// Moving the inner Clock directly moves time without running them.
type timerClock struct {
	*clocktest.Clock
	mu     sync.Mutex
	timers []fakeTimer
}

type fakeTimer struct {
	at time.Time
	f  func()
}

func newTimerClock() *timerClock { return &timerClock{Clock: clocktest.New(testEpoch)} }

func (c *timerClock) AfterFunc(d time.Duration, f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.timers = append(c.timers, fakeTimer{at: c.Now().Add(d), f: f})
}

// Advance moves the clock by d, then runs the timers due, in order.
func (c *timerClock) Advance(d time.Duration) {
	c.Clock.Advance(d)
	c.fire()
}

// fire runs the timers due now, those they arm included.
func (c *timerClock) fire() {
	for {
		now := c.Now()
		c.mu.Lock()
		next := -1
		for i, t := range c.timers {
			if !t.at.After(now) && (next < 0 || t.at.Before(c.timers[next].at)) {
				next = i
			}
		}
		if next < 0 {
			c.mu.Unlock()
			return
		}
		f := c.timers[next].f
		c.timers = append(c.timers[:next], c.timers[next+1:]...)
		c.mu.Unlock()
		f()
	}
}

// pending returns the number of timers not run yet.
func (c *timerClock) pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

// syncBuffer is a bytes.Buffer safe for a timer's goroutine to write
// while a test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// snapshot returns a copy of what was written so far.
func (b *syncBuffer) snapshot() *bytes.Buffer {
	b.mu.Lock()
	defer b.mu.Unlock()
	return bytes.NewBuffer(bytes.Clone(b.buf.Bytes()))
}
