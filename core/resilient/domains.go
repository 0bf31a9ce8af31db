package resilient

import (
	"maps"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ratewindow/ratewindow/core"
)

// Domainer is implemented by a primary store whose keys live in failure
// domains that fail independently of each other, as the masters of a
// Redis Cluster do. A Store whose primary implements it keeps a circuit
// breaker per domain, so a domain that fails makes only its own keys fail
// fast (or fall back); the keys of the other domains keep reaching the
// primary. core/redisstore's Store implements it.
type Domainer interface {
	// Domain returns the name of key's failure domain; the keys of one
	// domain share a breaker. Any string names a domain, "" included,
	// and the domains should be few (at most 64 at a time get a breaker
	// of their own, further ones share one). It is called for every
	// Take, Peek and Reset that reaches the breaker, so it must be quick
	// and must not block (it gets no context); it should not allocate. A
	// key's domain may change from one call to the next (a slot that
	// moved to another master): each call consults the breaker of the
	// domain named for it then.
	Domain(key string) string
}

// maxDomains bounds the breakers of a Store whose primary is a Domainer:
// a domain that finds them all in use shares one more breaker with every
// other such domain.
const maxDomains = 64

// staleIntervals is how many open intervals a domain's breaker may stay
// open (or half-open) beyond its open interval without any call for the
// domain before the Store forgets it: its domain has most likely gone (a
// master replaced after a failover) and must not keep State open for
// ever.
const staleIntervals = 10

// domain is the breaker of one failure domain.
type domain struct {
	breaker
	// used is set by every call that consults the breaker, and cleared by
	// each sweep.
	used atomic.Bool
	// retired is set, under domains.mu, when the domain is forgotten: its
	// changes no longer count for the aggregate State.
	retired bool
}

// domains are the breakers of a Store whose primary is a Domainer, one
// per failure domain, created on a domain's first call, and their
// aggregate state: Open if any breaker is open, else HalfOpen if any is
// half-open, else Closed.
//
// A closed call costs the Domain call, a map lookup and three atomic loads
// (the map, the domain's used mark, the aggregate state) on top of its
// breaker's.
// Every transition of every breaker happens under the one mu, so the
// aggregate's changes form one sequence and the hook sees them in order.
// While the aggregate is not Closed, calls also sweep, at most once per
// open interval: a breaker stale for staleIntervals is forgotten, and so,
// while domains overflow maxDomains, is any closed breaker no call used
// since the previous sweep.
type domains struct {
	primary   Domainer
	threshold int64
	interval  time.Duration
	clock     core.Clock
	onChange  func(from, to State) // the user's hook, on the aggregate

	byName    atomic.Pointer[map[string]*domain] // replaced under mu, never changed
	shared    *domain                            // the breaker of the domains past maxDomains
	crowded   atomic.Bool                        // a domain found byName full since the last sweep
	state     atomic.Int32                       // the aggregate State
	nextSweep atomic.Int64                       // Unix nanoseconds

	mu             sync.Mutex
	open, halfOpen int // breakers in these states, under mu
}

func newDomains(primary Domainer, c *config) *domains {
	d := &domains{primary: primary, threshold: int64(c.threshold), interval: c.interval, clock: c.clock, onChange: c.onChange}
	d.byName.Store(&map[string]*domain{})
	d.shared = d.newDomain()
	return d
}

func (d *domains) newDomain() *domain {
	dm := &domain{}
	dm.breaker = breaker{threshold: d.threshold, interval: d.interval, clock: d.clock, mu: &d.mu}
	dm.onChange = func(from, to State) { d.moved(dm, from, to) }
	return dm
}

// breaker returns the breaker of key's domain.
func (d *domains) breaker(key string) *breaker {
	name := d.primary.Domain(key)
	dm := (*d.byName.Load())[name]
	if dm == nil {
		dm = d.add(name)
	}
	if !dm.used.Load() {
		dm.used.Store(true)
	}
	if State(d.state.Load()) != Closed {
		d.sweepIfDue()
	}
	return &dm.breaker
}

// add returns the breaker of the domain name, created if there is room,
// else the shared one.
func (d *domains) add(name string) *domain {
	if d.crowded.Load() {
		d.sweepIfDue()
		if d.crowded.Load() {
			return d.shared
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	old := *d.byName.Load()
	if dm := old[name]; dm != nil {
		return dm
	}
	if len(old) >= maxDomains {
		d.crowded.Store(true)
		return d.shared
	}
	m := make(map[string]*domain, len(old)+1)
	maps.Copy(m, old)
	dm := d.newDomain()
	m[strings.Clone(name)] = dm
	d.byName.Store(&m)
	return dm
}

// moved counts a transition of dm's breaker and reports a change of the
// aggregate. Called with mu held.
func (d *domains) moved(dm *domain, from, to State) {
	if dm.retired {
		return
	}
	d.count(from, -1)
	d.count(to, 1)
	agg := Closed
	switch {
	case d.open > 0:
		agg = Open
	case d.halfOpen > 0:
		agg = HalfOpen
	}
	if old := State(d.state.Swap(int32(agg))); old != agg && d.onChange != nil {
		d.onChange(old, agg)
	}
}

func (d *domains) count(s State, n int) {
	switch s {
	case Open:
		d.open += n
	case HalfOpen:
		d.halfOpen += n
	}
}

// sweepIfDue sweeps if the last sweep is an open interval old (or the
// clock stepped back past it).
func (d *domains) sweepIfDue() {
	now := d.clock.Now().UnixNano()
	next := d.nextSweep.Load()
	if now < next && next-now <= int64(d.interval) {
		return
	}
	if d.nextSweep.CompareAndSwap(next, now+int64(d.interval)) {
		d.sweep(now)
	}
}

// sweep forgets the stale domains, and while domains overflow the closed
// ones no call used since the last sweep; it closes the shared breaker if
// it is stale.
func (d *domains) sweep(now int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	old := *d.byName.Load()
	crowded := d.crowded.Load()
	var kept map[string]*domain // nil while nothing is forgotten
	for name, dm := range old {
		idle := crowded && State(dm.state.Load()) == Closed && !dm.used.Load()
		if !idle && !d.stale(dm, now) {
			dm.used.Store(false)
			continue
		}
		dm.forget()
		dm.retired = true
		if kept == nil {
			kept = maps.Clone(old)
		}
		delete(kept, name)
	}
	if d.stale(d.shared, now) {
		d.shared.forget()
	}
	d.shared.used.Store(false)
	if kept != nil {
		d.byName.Store(&kept)
	}
	if len(*d.byName.Load()) < maxDomains {
		d.crowded.Store(false)
	}
}

// stale reports whether dm's breaker is open or half-open, and has
// neither opened nor started a probe for staleIntervals open intervals
// past its open interval, with no call since the last sweep. A probe
// still in flight then has been given up long ago (see admit): it does
// not keep the domain. A clock that stepped back past its last opening or
// probe restarts the count. Called with mu held.
func (d *domains) stale(dm *domain, now int64) bool {
	if State(dm.state.Load()) == Closed || dm.used.Load() {
		return false
	}
	idle := now - dm.touched
	if idle < 0 {
		// The clock stepped back past it: count from the step, so a
		// domain that has gone is still forgotten in about
		// staleIntervals, not once the clock is back where it was.
		dm.touched = now
		return false
	}
	return idle/int64(d.interval) > staleIntervals
}

// forget closes dm's breaker. Called with mu held.
func (dm *domain) forget() { dm.close() }
