package faulttest

import (
	"sync"
	"time"
)

// stallWatch records the times this test process was kept from running
// (a loaded machine, a paused process): a goroutine sleeps 10 ms at a time
// and notes each waking more than 100 ms after it was due. A call in
// flight then may outlive a 250 ms read timeout through no fault of the
// code under test.
type stallWatch struct {
	done chan struct{}
	wg   sync.WaitGroup

	mu     sync.Mutex
	stalls []stall
}

// stall is a span in which the process did not run.
type stall struct{ from, to time.Time }

const (
	stallTick  = 10 * time.Millisecond
	stallNoted = 100 * time.Millisecond
)

func watchStalls() *stallWatch {
	w := &stallWatch{done: make(chan struct{})}
	w.wg.Go(func() {
		for {
			due := time.Now().Add(stallTick)
			select {
			case <-w.done:
				return
			case <-time.After(stallTick):
			}
			if woke := time.Now(); woke.Sub(due) > stallNoted {
				w.mu.Lock()
				w.stalls = append(w.stalls, stall{due.Add(-stallTick), woke})
				w.mu.Unlock()
			}
		}
	})
	return w
}

// stop ends the watch.
func (w *stallWatch) stop() {
	close(w.done)
	w.wg.Wait()
}

// stalled returns how long the process stalled within the span from..to.
func (w *stallWatch) stalled(from, to time.Time) time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	var d time.Duration
	for _, s := range w.stalls {
		if lo, hi := later(s.from, from), earlier(s.to, to); lo.Before(hi) {
			d += hi.Sub(lo)
		}
	}
	return d
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func earlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
