// Package breakertest watches the circuit breaker of a core/resilient
// Store for the module's tests: the changes its hook reports, and the
// states a poll of State sees while a test runs.
package breakertest

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/ratewindow/ratewindow/core/resilient"
)

// Log records the changes of state reported to its Record method, a hook
// for resilient.WithOnStateChange, as "from->to" strings.
type Log struct {
	mu  sync.Mutex
	got []string
}

// Record is the hook: it appends "from->to".
func (l *Log) Record(from, to resilient.State) {
	l.mu.Lock()
	l.got = append(l.got, from.String()+"->"+to.String())
	l.mu.Unlock()
}

// List returns a copy of the changes recorded so far, in order.
func (l *Log) List() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.got...)
}

// Seen is what Watch saw.
type Seen struct {
	opened, closedAfterOpen atomic.Bool
}

// Opened reports whether State was Open at some poll.
func (s *Seen) Opened() bool { return s.opened.Load() }

// ClosedAfterOpen reports whether State was Closed at a poll after one
// that saw it Open.
func (s *Seen) ClosedAfterOpen() bool { return s.closedAfterOpen.Load() }

// Watch polls store's State every 5 ms until end, on a goroutine of wg;
// read what it saw once wg is done.
func Watch(wg *sync.WaitGroup, store *resilient.Store, end time.Time) *Seen {
	return WatchWhile(wg, store, func() bool { return time.Now().Before(end) })
}

// WatchWhile is Watch for a test whose end is not a fixed time: it polls
// while running reports true.
func WatchWhile(wg *sync.WaitGroup, store *resilient.Store, running func() bool) *Seen {
	seen := &Seen{}
	wg.Go(func() {
		for running() {
			switch store.State() {
			case resilient.Open:
				seen.opened.Store(true)
			case resilient.Closed:
				if seen.opened.Load() {
					seen.closedAfterOpen.Store(true)
				}
			}
			time.Sleep(5 * time.Millisecond)
		}
	})
	return seen
}
