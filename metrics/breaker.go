package metrics

import "github.com/ratewindow/ratewindow/core/resilient"

// Values of the circuit_breaker_state gauge.
const (
	breakerClosed   = 0
	breakerHalfOpen = 1
	breakerOpen     = 2
)

// BreakerStateChanged sets the circuit_breaker_state gauge to the state the
// breaker moved to (resilient.Store's State: with a breaker per Cluster
// master, the worst of them): 0 closed, 1 half-open, 2 open, so that an
// alert on "> 0" fires while the store is not fully trusted. Pass it to
// resilient.WithOnStateChange. It is cheap and takes no lock, as that hook
// requires. An unknown state leaves the gauge as it was.
//
// Until the first change the gauge reads 0, which is also what it reads
// when no breaker is in use.
func (c *Collector) BreakerStateChanged(from, to resilient.State) {
	switch to {
	case resilient.Closed:
		c.breaker.Set(breakerClosed)
	case resilient.HalfOpen:
		c.breaker.Set(breakerHalfOpen)
	case resilient.Open:
		c.breaker.Set(breakerOpen)
	}
}
