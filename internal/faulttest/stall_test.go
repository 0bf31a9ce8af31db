package faulttest

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// stallWatch records the times this test process was kept from running
// (a loaded machine, a paused process): a goroutine sleeps 10 ms at a time
// and notes each waking more than 100 ms after it was due. A call in
// flight then may outlive a 250 ms read timeout through no fault of the
// code under test. With watchServers it also records the times a Redis
// server was kept from running.
type stallWatch struct {
	done chan struct{}
	wg   sync.WaitGroup

	mu     sync.Mutex
	stalls []stall
}

// stall is a span in which the process (or a server) did not run.
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
				w.note(due.Add(-stallTick), woke)
			}
		}
	})
	return w
}

// watchServers also records, for each Redis server at addrs, the spans in
// which it took more than 100 ms to answer a PING (sent every 10 ms on a
// connection of its own): on a loaded machine the server itself may be
// kept from running, and a call's 250 ms read then times out however
// quick this process is. A PING that fails at once (a refused connection:
// a stopped server) is no stall.
func (w *stallWatch) watchServers(addrs ...string) {
	for _, addr := range addrs {
		c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, PoolSize: 1,
			DialTimeout: 5 * time.Second, ReadTimeout: 5 * time.Second, WriteTimeout: 5 * time.Second})
		w.wg.Go(func() {
			defer c.Close()
			for {
				select {
				case <-w.done:
					return
				case <-time.After(stallTick):
				}
				sent := time.Now()
				_ = c.Ping(context.Background()).Err()
				if answered := time.Now(); answered.Sub(sent) > stallNoted {
					w.note(sent, answered)
				}
			}
		})
	}
}

func (w *stallWatch) note(from, to time.Time) {
	w.mu.Lock()
	w.stalls = append(w.stalls, stall{from, to})
	w.mu.Unlock()
}

// stop ends the watch.
func (w *stallWatch) stop() {
	close(w.done)
	w.wg.Wait()
}

// stalled returns how long, within the span from..to, the process or a
// watched server stalled (overlapping stalls counted once).
func (w *stallWatch) stalled(from, to time.Time) time.Duration {
	w.mu.Lock()
	var in []stall
	for _, s := range w.stalls {
		if lo, hi := later(s.from, from), earlier(s.to, to); lo.Before(hi) {
			in = append(in, stall{lo, hi})
		}
	}
	w.mu.Unlock()
	slices.SortFunc(in, func(a, b stall) int { return a.from.Compare(b.from) })
	var d time.Duration
	var end time.Time
	for _, s := range in {
		if s.from.Before(end) {
			s.from = end
		}
		if s.from.Before(s.to) {
			d += s.to.Sub(s.from)
			end = s.to
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
