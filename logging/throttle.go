package logging

import (
	"sync"
	"time"

	"github.com/ratewindow/ratewindow/core"
)

// throttle lets one record through per interval and counts the others.
//
// A mutex, not atomics: with a compare-and-swap on the deadline and a
// separate counter, a failure held back just after another goroutine won
// the slot could be counted in that goroutine's record instead of the
// next one. The section is a few instructions and runs only for the outcomes
// that are logged (failures, denials, unclassified requests).
type throttle struct {
	every      time.Duration
	clock      core.Clock
	mu         sync.Mutex
	last       time.Time // when the last record was let through
	suppressed int64     // held back since the last record
}

// admit reports whether a record may be logged now and, if so, how many
// were held back since the last one. Time is measured from the last
// record, on the monotonic clock when the clock gives one, so a step of
// the wall clock does not hold records back; a clock read earlier than
// the last record (a stepped fake or wall clock) lets the next one
// through.
func (t *throttle) admit() (bool, int64) {
	if t.every <= 0 {
		return true, 0
	}
	now := t.clock.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.last.IsZero() && !now.Before(t.last) && now.Sub(t.last) < t.every {
		t.suppressed++
		return false, 0
	}
	t.last = now
	n := t.suppressed
	t.suppressed = 0
	return true, n
}
