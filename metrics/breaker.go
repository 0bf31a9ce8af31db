package metrics

import (
	"sync"

	"github.com/ratewindow/ratewindow/core/resilient"
)

// Values of the circuit_breaker_state gauge.
const (
	breakerClosed   = 0
	breakerHalfOpen = 1
	breakerOpen     = 2
)

// breakers counts the breakers reporting to a Collector by state, from the
// transitions they report: every breaker starts closed, so the counts of
// the open and half-open ones are all the gauge needs.
type breakers struct {
	mu             sync.Mutex
	open, halfOpen int
}

// BreakerStateChanged records a transition of a circuit breaker (the
// resilient.Store's State: with a breaker per Cluster master, the worst of
// them) and sets the circuit_breaker_state gauge to the worst state of
// every breaker that reports to this Collector: 2 while any is open, else
// 1 while any is half-open, else 0. An alert on "> 0" thus fires while any
// store is not fully trusted. Pass it to resilient.WithOnStateChange.
//
// Several resilient Stores (two Redis stores, or two limiters each with
// its own Store) may pass it to one Collector: it counts the breakers in
// each state from the transitions they report, all starting closed, so
// one store closing does not hide another that is still open. It needs
// no registration and adds no label: with one breaker the gauge is that
// breaker's state. A Store dropped while open keeps counting as open;
// give a Store that is replaced at run time a Collector of its own (or
// none). To see each store apart, give each its own Collector and register
// them through prometheus.WrapRegistererWith.
//
// It is cheap and takes only a short lock of its own, as that hook
// requires. A transition to an unknown state leaves the gauge as it was.
//
// Until the first change the gauge reads 0, which is also what it reads
// when no breaker is in use. A breaker changes state only when a call
// comes in, so the gauge is the state as of the last call: an instance
// that gets no request after its breaker opened keeps reading 2 until
// its next request probes the store.
func (c *Collector) BreakerStateChanged(from, to resilient.State) {
	b := &c.breakers
	b.mu.Lock()
	defer b.mu.Unlock()
	switch to {
	case resilient.Closed, resilient.HalfOpen, resilient.Open:
	default:
		return
	}
	b.add(from, -1)
	b.add(to, 1)
	switch {
	case b.open > 0:
		c.breaker.Set(breakerOpen)
	case b.halfOpen > 0:
		c.breaker.Set(breakerHalfOpen)
	default:
		c.breaker.Set(breakerClosed)
	}
}

// add counts n more breakers in state s, never fewer than none (a
// transition from a state nothing reported entering is taken as one from
// Closed). Called with mu held.
func (b *breakers) add(s resilient.State, n int) {
	switch s {
	case resilient.Open:
		b.open = max(b.open+n, 0)
	case resilient.HalfOpen:
		b.halfOpen = max(b.halfOpen+n, 0)
	}
}
