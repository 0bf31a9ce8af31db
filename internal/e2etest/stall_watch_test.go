package e2etest

import (
	"sync"
	"testing"
	"time"
)

// stallWatch records the times this test process was kept from running
// (a loaded machine): a goroutine sleeps 10 ms at a time and notes each
// waking more than 100 ms after it was due. A request's time less those
// stalls is the time the code under test made it wait.
type stallWatch struct {
	mu     sync.Mutex
	stalls [][2]time.Time
}

// watchStalls starts a watch that ends with the test.
func watchStalls(t testing.TB) *stallWatch {
	w := &stallWatch{}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			due := time.Now().Add(10 * time.Millisecond)
			select {
			case <-done:
				return
			case <-time.After(10 * time.Millisecond):
			}
			if woke := time.Now(); woke.Sub(due) > 100*time.Millisecond {
				w.mu.Lock()
				w.stalls = append(w.stalls, [2]time.Time{due.Add(-10 * time.Millisecond), woke})
				w.mu.Unlock()
			}
		}
	})
	t.Cleanup(func() {
		close(done)
		wg.Wait()
	})
	return w
}

// own returns took less the time the process stalled between from and
// from+took.
func (w *stallWatch) own(from time.Time, took time.Duration) time.Duration {
	to := from.Add(took)
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, s := range w.stalls {
		lo, hi := s[0], s[1]
		if lo.Before(from) {
			lo = from
		}
		if hi.After(to) {
			hi = to
		}
		if lo.Before(hi) {
			took -= hi.Sub(lo)
		}
	}
	return took
}
