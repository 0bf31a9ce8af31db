package core

import (
	"sync"
	"sync/atomic"
	"time"
)

// CoarseClock is a Clock that reads the system clock once per millisecond,
// in one background goroutine shared by the whole process, and returns the
// latest reading. A call to Now is then an atomic load instead of a clock
// read: on virtual machines, where a clock read can cost as much as the
// rest of an in-memory decision, that is the difference between a hot key
// at about 85 ns and one at about 50 ns.
//
// The price is staleness: Now can be up to a millisecond behind the system
// clock, more when the process is so busy that the goroutine is not
// scheduled on time. Like SystemClock it follows steps of the wall clock;
// the stores never let time run backwards for a key. A client that waits
// exactly a Decision's RetryAfter can therefore, rarely, be a millisecond
// early and be denied again; HTTP
// Retry-After is rounded up to whole seconds, so HTTP clients are not
// affected. The millisecond is also the stores' resolution.
//
// The goroutine starts on the first call and stops by itself after 100 ms
// without one, so an idle process does not wake a thousand times a second
// (and leak detectors in tests see no goroutine left behind for long). Use
// it with the memory store; with Redis a network round trip dwarfs a clock
// read, and SystemClock is the better choice.
//
// The zero value is ready to use; all CoarseClocks share one goroutine.
type CoarseClock struct{}

const (
	// coarseTick is how often the background goroutine reads the clock.
	coarseTick = time.Millisecond
	// coarseIdleTicks is how many ticks without a call stop it.
	coarseIdleTicks = 100
)

// coarse is the state shared by every CoarseClock.
var coarse struct {
	now     atomic.Pointer[time.Time] // the reading of the last tick
	running atomic.Bool               // the goroutine is ticking
	used    atomic.Bool               // Now was called since the last tick
	mu      sync.Mutex                // serialises starting the goroutine
}

// Now returns the system time as of the latest tick.
func (CoarseClock) Now() time.Time {
	if coarse.running.Load() {
		if !coarse.used.Load() {
			coarse.used.Store(true)
		}
		return *coarse.now.Load()
	}
	return startCoarse()
}

// startCoarse reads the clock and starts the ticking goroutine unless
// another call already has.
func startCoarse() time.Time {
	now := SystemClock{}.Now()
	coarse.mu.Lock()
	defer coarse.mu.Unlock()
	if coarse.running.Load() {
		return now
	}
	coarse.now.Store(&now)
	coarse.used.Store(true)
	coarse.running.Store(true)
	go tickCoarse()
	return now
}

// tickCoarse refreshes coarse.now every tick until no call has come for
// coarseIdleTicks ticks.
func tickCoarse() {
	t := time.NewTicker(coarseTick)
	defer t.Stop()
	idle := 0
	for range t.C {
		// A fresh value each tick (a thousand small allocations a second
		// while in use): readers copy it without a lock.
		now := SystemClock{}.Now()
		coarse.now.Store(&now)
		if coarse.used.Swap(false) {
			idle = 0
			continue
		}
		if idle++; idle >= coarseIdleTicks {
			coarse.mu.Lock()
			coarse.running.Store(false)
			coarse.mu.Unlock()
			return
		}
	}
}
