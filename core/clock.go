package core

import (
	"sync/atomic"
	"time"
)

// Clock tells the time. Limiters take one so tests can run on a clock that
// moves only when told.
type Clock interface {
	Now() time.Time
}

// SystemClock is the Clock of the operating system.
//
// Reading the wall clock costs two clock reads (wall and monotonic), a
// large share of a limiter decision, so SystemClock reads only the
// monotonic clock and adds it to a wall-clock anchor taken at most a second
// ago. The result follows NTP slewing exactly and an NTP step within a
// second. Times it returns carry no monotonic reading; they compare as wall
// times, which is what the stores use.
type SystemClock struct{}

// anchor pairs a wall-clock reading (with its monotonic reading) with the
// same instant in Unix nanoseconds.
type anchor struct {
	mono time.Time // from time.Now: has a monotonic reading
	wall int64     // the same instant, Unix nanoseconds
}

var clockAnchor atomic.Pointer[anchor]

// reanchorEvery bounds how long SystemClock trusts the monotonic clock
// before reading the wall clock again.
const reanchorEvery = time.Second

// Now returns the current wall time.
func (SystemClock) Now() time.Time {
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
