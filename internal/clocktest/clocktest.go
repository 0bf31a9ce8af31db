// Package clocktest is the fake clock of the module's tests and tools: a
// core.Clock that moves only when told.
package clocktest

import (
	"sync"
	"time"

	"github.com/ratewindow/ratewindow/core"
)

// Clock is a clock that moves only when told. It is safe for concurrent use.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// New returns a Clock reading t.
func New(t time.Time) *Clock { return &Clock{now: t} }

// Now returns the fake time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d (backward if d is negative).
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// Set moves the clock to t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	c.now = t
	c.mu.Unlock()
}

// Option returns the option of type O that makes a package read time from
// c. Packages whose clock only tests move (core/resilient's breaker, the
// logging throttle, topkeys' LastSeen) keep it out of their public options
// and give their unexported config a SetClock method instead, e.g.
//
//	resilient.New(primary, clocktest.Option[resilient.Option](clock))
func Option[O ~func(C), C interface{ SetClock(core.Clock) }](c core.Clock) O {
	return func(cfg C) { cfg.SetClock(c) }
}
