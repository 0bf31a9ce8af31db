package faulttest

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/redisstore"
)

// storeLoad runs workers goroutines that Take one unit of keys in turn,
// each call bounded by a deadline, until stop. It records per key the
// charges Redis acknowledged, and every failure with its time.
type storeLoad struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
	calls  atomic.Int64

	mu       sync.Mutex
	allowed  map[string]int64
	failures []failure
}

type failure struct {
	sent, at time.Time // the call's start and end
	key      string
	err      error
}

// startStoreLoad starts the load on s with policies ps at the fixed time
// now (so no window rolls over during a test).
func startStoreLoad(s *redisstore.Store, keys []string, ps []core.Policy, now time.Time, workers int, deadline time.Duration) *storeLoad {
	ctx, cancel := context.WithCancel(context.Background())
	l := &storeLoad{cancel: cancel, allowed: map[string]int64{}}
	for w := range workers {
		l.wg.Go(func() {
			for i := w; ctx.Err() == nil; i += workers {
				key := keys[i%len(keys)]
				// Not derived from ctx: a call under way when the load
				// stops finishes, so every charge Redis made is counted.
				sent := time.Now()
				cctx, ccancel := context.WithTimeout(context.Background(), deadline)
				r, err := s.Take(cctx, key, ps, 1, now)
				ccancel()
				l.calls.Add(1)
				l.mu.Lock()
				if err != nil {
					l.failures = append(l.failures, failure{sent, time.Now(), key, err})
				} else if r.States[0].Allowed {
					l.allowed[key]++
				}
				l.mu.Unlock()
			}
		})
	}
	return l
}

// stop ends the load and waits for every worker.
func (l *storeLoad) stop() {
	l.cancel()
	l.wg.Wait()
}

// failuresSince returns the failures at or after t.
func (l *storeLoad) failuresSince(t time.Time) []failure {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []failure
	for _, f := range l.failures {
		if !f.at.Before(t) {
			out = append(out, f)
		}
	}
	return out
}

// logFailures logs how many calls failed and the distinct errors.
func logFailures(t *testing.T, fs []failure) {
	t.Helper()
	seen := map[string]int{}
	for _, f := range fs {
		seen[f.err.Error()]++
	}
	for msg, n := range seen {
		t.Logf("%5d × %s", n, msg)
	}
}
