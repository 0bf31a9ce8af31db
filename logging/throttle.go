package logging

import (
	"sync"
	"time"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
)

// afterFuncer is a clock that can also run a func once, d from now: the
// wall clock does, with time.AfterFunc. Without it (a test clock that has
// no timers) a count held back waits for the next record to carry it.
type afterFuncer interface {
	AfterFunc(d time.Duration, f func())
}

// throttle lets one record through per interval and counts the others.
//
// The first record held back in an interval is kept, and a timer is
// armed for the end of the interval: if no record has come by then to
// carry the count, the timer writes the kept record with it, so the count
// of the last interval of a flood is written too. A timer, not a
// goroutine: nothing runs while it waits, it is armed at most once per
// interval, and once it has fired with nothing more to write nothing
// refers to the throttle any more, so a dropped Hook needs no Close.
//
// A mutex, not atomics: with a compare-and-swap on the deadline and a
// separate counter, a record held back just after another goroutine won
// the slot could be counted in that goroutine's record instead of the
// next one. The section is a few instructions and runs only for the outcomes
// that are logged (failures, denials, unclassified requests).
type throttle struct {
	every time.Duration
	clock core.Clock
	after afterFuncer // nil: no timer
	flush func()      // what the timer runs, made once

	mu         sync.Mutex
	last       time.Time        // when the last record was written
	suppressed int64            // held back since the last record
	held       ratewindow.Event // the first of them
	armed      bool             // the timer is pending
}

// admit reports whether ev may be logged now and, if so, how many were
// held back since the last record. Time is measured from the last record,
// on the monotonic clock when the clock gives one, so a step of the wall
// clock does not hold records back; a clock read earlier than the last
// record (a stepped fake or wall clock) lets the next one through.
func (t *throttle) admit(ev *ratewindow.Event) (bool, int64) {
	if t.every <= 0 {
		return true, 0
	}
	now := t.clock.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.within(now) {
		if t.suppressed == 0 {
			t.held = *ev
		}
		t.suppressed++
		t.arm(now)
		return false, 0
	}
	t.last = now
	n := t.suppressed
	t.suppressed, t.held = 0, ratewindow.Event{}
	return true, n
}

// release is what the timer does at the end of an interval: it returns
// the record kept and the number of the others held back with it, and
// false when there is nothing to write (a record came and carried the
// count) or the interval has not ended yet (a record came since the timer
// was armed: it is armed again for the end of the new interval).
func (t *throttle) release() (ratewindow.Event, int64, bool) {
	now := t.clock.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.armed = false
	if t.suppressed == 0 {
		return ratewindow.Event{}, 0, false
	}
	if t.within(now) {
		t.arm(now)
		return ratewindow.Event{}, 0, false
	}
	ev, n := t.held, t.suppressed-1
	t.last = now
	t.suppressed, t.held = 0, ratewindow.Event{}
	return ev, n, true
}

// within reports whether now falls in the interval of the last record.
func (t *throttle) within(now time.Time) bool {
	return !t.last.IsZero() && !now.Before(t.last) && now.Sub(t.last) < t.every
}

// arm starts the timer for the end of the current interval, unless it is
// pending already. t.mu is held.
func (t *throttle) arm(now time.Time) {
	if t.armed || t.after == nil {
		return
	}
	t.armed = true
	t.after.AfterFunc(t.last.Add(t.every).Sub(now), t.flush)
}
