package resilient

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/ratewindow/ratewindow/core"
)

// breaker is a consecutive-failure circuit breaker.
//
// Closed is the hot path: a call costs four atomic loads, two to admit it
// and two to record its success (and a store only when a failure streak
// ends). While open, a call is refused with three atomic loads and a clock
// read, without the lock. Every transition
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
	// opens counts the openings: a call admitted while closed carries the
	// count of its admission, and its outcome is dropped if the breaker
	// has opened since (see record).
	opens atomic.Uint64

	// The rest is under mu.
	mu *sync.Mutex
	// probe numbers the half-open probes: the latest one started is
	// number probe, and in flight while probing. spell is the number of
	// the first probe since the breaker last went half-open.
	probe   uint64
	probing bool
	spell   uint64
	// touched is when the breaker last opened or started a probe, Unix
	// nanoseconds.
	touched int64
}

// stillOpen reports whether the open interval still runs. A clock that
// stepped back past the opening ends the interval rather than stretching
// it.
func (b *breaker) stillOpen() bool {
	d := b.clock.Now().UnixNano() - b.openedAt.Load()
	return d >= 0 && d < int64(b.interval)
}

// open moves to Open now, and ends any probe in flight: its answer, when
// it comes, is late. Called with mu held.
func (b *breaker) open() {
	b.probing = false
	b.opens.Add(1)
	now := b.clock.Now().UnixNano()
	b.openedAt.Store(now)
	b.touched = now
	b.set(Open)
}

// admit reports whether a call may go to the primary and, if that call is
// the half-open probe, its number (0 for any other call); gen is the count
// of openings when a call that is not a probe was admitted, for record.
//
// A probe holds the half-open slot for one open interval at most: a
// primary that never answers it (a store with no timeout, a context with
// no deadline) would otherwise keep the breaker half-open, every call
// refused, for good. The open interval is the bound the breaker already
// keeps on its own clock, the time it waits before asking the primary
// again after a failure: a probe unanswered that long counts as a failure
// whose open interval has passed already, and the next call goes as a new
// probe. A caller's deadline could not bound it: a call need not have
// one, and it runs on the real clock, not the breaker's.
func (b *breaker) admit() (ok bool, probe, gen uint64) {
	gen = b.opens.Load() // before the state: an opening since then is seen
	switch State(b.state.Load()) {
	case Closed:
		return true, 0, gen
	case Open:
		if b.stillOpen() {
			return false, 0, 0
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	switch State(b.state.Load()) {
	case Closed:
		return true, 0, b.opens.Load()
	case Open:
		if b.stillOpen() {
			return false, 0, 0
		}
		b.set(HalfOpen)
		b.spell = b.probe + 1
		return true, b.startProbe(), 0
	default: // HalfOpen
		if b.probing && b.probeRuns() {
			return false, 0, 0
		}
		return true, b.startProbe(), 0
	}
}

// probeRuns reports whether the probe in flight started less than an open
// interval ago. A clock that stepped back past its start ends its time,
// as it ends the open interval. Called with mu held.
func (b *breaker) probeRuns() bool {
	d := b.clock.Now().UnixNano() - b.touched
	return d >= 0 && d < int64(b.interval)
}

// startProbe marks a new probe in flight and returns its number. Called
// with mu held.
func (b *breaker) startProbe() uint64 {
	b.probe++
	b.probing = true
	b.touched = b.clock.Now().UnixNano()
	return b.probe
}

// record tells the breaker how a call it admitted ended; probe and gen
// are what admit gave it.
//
// The outcome of a call admitted while closed is dropped if the breaker
// has opened since: a failure then tells of the outage the breaker opened
// for, and once a probe has closed it again (a primary slower to fail than
// the open interval) it would count against the primary that answers now,
// and a few such late failures would open it anew; a success tells no more
// of the present than a failure.
func (b *breaker) record(probe, gen uint64, o outcome) {
	if probe == 0 {
		if b.opens.Load() != gen {
			return
		}
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
	if probe != b.probe || !b.probing {
		b.late(probe, o)
		return
	}
	b.probing = false
	switch o {
	case success:
		b.close()
	case failure:
		b.open()
	}
	// neutral: stay half-open; the next call probes.
}

// late records the answer of a probe that was given up (a newer probe
// took its place) or whose breaker has moved on. Its failure says nothing
// a newer probe will not say, and is dropped. Its success closes the
// breaker if it has stayed half-open since that probe started: the
// primary answers, if slowly, and a primary slower than the open interval
// would otherwise never close it, each probe given up before it answers.
// A breaker that a newer probe's verdict (or a trip) moved on stays as it
// is. Called with mu held.
func (b *breaker) late(probe uint64, o outcome) {
	if o == success && State(b.state.Load()) == HalfOpen && probe >= b.spell {
		b.close()
	}
}

// close moves to Closed and ends any probe in flight: its answer, when it
// comes, is late. Called with mu held.
func (b *breaker) close() {
	b.probing = false
	b.failures.Store(0)
	b.set(Closed)
}

// abandon ends the probe of a call that never recorded its outcome (*probe
// is still its number: its primary call panicked) as a failure, so the
// breaker does not stay half-open, refusing every call, for an interval
// more. A caller defers it for a probe and sets *probe to 0 once it has
// called record.
func (b *breaker) abandon(probe *uint64) {
	if *probe != 0 {
		b.record(*probe, 0, failure)
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
