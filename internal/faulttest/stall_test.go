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

// during returns a stall that overlaps the span from..to, if one does.
func (w *stallWatch) during(from, to time.Time) (stall, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, s := range w.stalls {
		if s.from.Before(to) && from.Before(s.to) {
			return s, true
		}
	}
	return stall{}, false
}
