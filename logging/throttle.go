package logging

import (
	"sync/atomic"
	"time"

	"github.com/ratewindow/ratewindow/core"
)

// throttle lets one record through per interval and counts the others.
// It takes no lock.
type throttle struct {
	every      time.Duration
	clock      core.Clock
	next       atomic.Int64 // Unix nanoseconds before which records are held back
	suppressed atomic.Int64
}

// admit reports whether a record may be logged now and, if so, how many
// were held back since the last one.
func (t *throttle) admit() (bool, int64) {
	if t.every <= 0 {
		return true, 0
	}
	now := t.clock.Now().UnixNano()
	next := t.next.Load()
	if now < next || !t.next.CompareAndSwap(next, now+int64(t.every)) {
		t.suppressed.Add(1)
		return false, 0
	}
	return true, t.suppressed.Swap(0)
}
