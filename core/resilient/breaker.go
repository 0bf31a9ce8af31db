package resilient

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/ratewindow/ratewindow/core"
)

// breaker is a consecutive-failure circuit breaker.
//
// Closed is the hot path and costs one atomic load per call (and a store
// only when a failure streak ends). While open, a call is refused with two
// atomic loads and a clock read, without the lock. Every transition
// happens under mu, so OnStateChange sees them in order. A Store with
// failure domains gives all its breakers one mu (see domains).
type breaker struct {
	threshold int64
	interval  time.Duration
	clock     core.Clock
	onChange  func(from, to State)

	state    atomic.Int32 // a State
	failures atomic.Int64 // consecutive failures while closed

	openedAt atomic.Int64 // when the breaker last opened, Unix nanoseconds

	mu      *sync.Mutex
	probing bool // a half-open probe is in flight, under mu
	// touched is when the breaker last opened or started a probe, Unix
	// nanoseconds, under mu.
	touched int64
}

// stillOpen reports whether the open interval still runs. A clock that
// stepped back past the opening ends the interval rather than stretching
// it.
func (b *breaker) stillOpen() bool {
	d := b.clock.Now().UnixNano() - b.openedAt.Load()
	return d >= 0 && d < int64(b.interval)
}

// open moves to Open now. Called with mu held.
func (b *breaker) open() {
	now := b.clock.Now().UnixNano()
	b.openedAt.Store(now)
	b.touched = now
	b.set(Open)
}

// admit reports whether a call may go to the primary, and whether that call
// is the half-open probe.
func (b *breaker) admit() (ok, probe bool) {
	switch State(b.state.Load()) {
	case Closed:
		return true, false
	case Open:
		if b.stillOpen() {
			return false, false
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	switch State(b.state.Load()) {
	case Closed:
		return true, false
	case Open:
		if b.stillOpen() {
			return false, false
		}
		b.set(HalfOpen)
		b.startProbe()
		return true, true
	default: // HalfOpen
		if b.probing {
			return false, false
		}
		b.startProbe()
		return true, true
	}
}

// startProbe marks a probe in flight. Called with mu held.
func (b *breaker) startProbe() {
	b.probing = true
	b.touched = b.clock.Now().UnixNano()
}

// record tells the breaker how a call it admitted ended.
func (b *breaker) record(probe bool, o outcome) {
	if !probe {
		switch o {
		case success:
			if b.failures.Load() != 0 {
				b.failures.Store(0)
			}
		case failure:
			if b.failures.Add(1) >= b.threshold {
				b.trip()
			}
		}
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.probing = false
	switch o {
	case success:
		b.failures.Store(0)
		b.set(Closed)
	case failure:
		b.open()
	}
	// neutral: stay half-open; the next call probes.
}

// abandon ends the probe of a call that never recorded its outcome (*probe
// is still true: its primary call panicked) as a failure, so the breaker
// does not stay half-open, refusing every call, for good. A caller defers
// it for a probe and sets *probe to false once it has called record.
func (b *breaker) abandon(probe *bool) {
	if *probe {
		b.record(true, failure)
	}
}

// trip opens a closed breaker.
func (b *breaker) trip() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if State(b.state.Load()) != Closed {
		return
	}
	b.open()
}

// set moves to state to and reports the change. Called with mu held.
func (b *breaker) set(to State) {
	from := State(b.state.Swap(int32(to)))
	if from != to && b.onChange != nil {
		b.onChange(from, to)
	}
}
