// Package sysclock is the system clock of core and core/resilient.
package sysclock

import (
	"sync/atomic"
	"time"
)

// Clock is the clock of the operating system, the default of a Limiter and
// of core/resilient's breaker.
//
// Reading the wall clock costs two clock reads (wall and monotonic), a
// large share of a limiter decision, so Clock reads only the
// monotonic clock and adds it to a wall-clock anchor taken at most a second
// ago. The result follows NTP slewing exactly and an NTP step within a
// second. Times it returns carry no monotonic reading; they compare as wall
// times, which is what the stores use.
type Clock struct{}

// anchor pairs a wall-clock reading (with its monotonic reading) with the
// same instant in Unix nanoseconds.
type anchor struct {
	mono time.Time // from time.Now: has a monotonic reading
	wall int64     // the same instant, Unix nanoseconds
}

var clockAnchor atomic.Pointer[anchor]

// reanchorEvery bounds how long Clock trusts the monotonic clock
// before reading the wall clock again.
const reanchorEvery = time.Second

// Now returns the current wall time.
func (Clock) Now() time.Time {
	a := clockAnchor.Load()
	if a != nil {
		if d := time.Since(a.mono); d >= 0 && d < reanchorEvery {
			return time.Unix(0, a.wall+int64(d))
		}
	}
	now := time.Now()
	clockAnchor.Store(&anchor{mono: now, wall: now.UnixNano()})
	return now.Round(0)
}
