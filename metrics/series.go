package metrics

import (
	"maps"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ratewindow/ratewindow"
)

// route holds the series of one route label value. Its children of the
// metric vectors are resolved once, when first needed, so observing a
// request is a few map reads and atomic adds: no label hashing, no
// allocation.
type route struct {
	name     string
	duration prometheus.Observer
	// fallback[o] is the fallback_decisions_total child for outcome o:
	// Allowed, Denied or WouldDeny, the outcomes of a decision.
	fallback [numDecided]prometheus.Counter
	// policies maps a policy label value to its series; copy on write
	// under Collector.mu, like Collector.routes.
	policies atomic.Pointer[map[string]*series]
	// full is set once maxPolicies policies of this route have their own
	// label value; named counts them (under Collector.mu).
	full  atomic.Bool
	named int
}

// series holds the counters of one (route, policy) pair.
type series struct {
	route  *route
	policy string
	// outcomes[o] is the requests_total child for outcome o, nil until
	// first needed.
	outcomes [numOutcomes]atomic.Pointer[prometheus.Counter]
	// near is the near_limit_total child, nil until first needed.
	near atomic.Pointer[prometheus.Counter]
}

// route returns the series of a route label, adding it (or falling back to
// otherRoute once the cap is reached) on first sight.
func (c *Collector) route(name string) *route {
	if name == "" {
		name = unmatchedRoute
	}
	m := *c.routes.Load()
	if r, ok := m[name]; ok {
		return r
	}
	if c.full.Load() && name != unmatchedRoute {
		if r, ok := m[otherRoute]; ok {
			return r
		}
	}
	return c.addRoute(name)
}

func (c *Collector) addRoute(name string) *route {
	c.mu.Lock()
	defer c.mu.Unlock()
	old := *c.routes.Load()
	if r, ok := old[name]; ok {
		return r
	}
	counted := name != unmatchedRoute && name != otherRoute
	if counted && c.named >= c.maxRoutes {
		c.full.Store(true)
		name, counted = otherRoute, false
		if r, ok := old[name]; ok {
			return r
		}
	}
	// The label value outlives the request: own its bytes, in case the
	// framework's string points into a reused buffer.
	name = strings.Clone(name)
	label := labelValue(name)
	r := &route{name: label, duration: c.duration.WithLabelValues(label)}
	for o := range r.fallback {
		r.fallback[o] = c.fallback.WithLabelValues(label, ratewindow.Outcome(o).String())
	}
	// The route's series of requests without a decision from its first
	// request on, so that its first store error or unclassified request
	// is an increase from an exported zero: a counter first exported at 1
	// is no increase to rate() or increase(), and an alert would miss it.
	r.policies.Store(&map[string]*series{noPolicy: c.newSeries(r, noPolicy)})
	m := maps.Clone(old)
	m[name] = r
	c.routes.Store(&m)
	if counted {
		c.named++
	}
	return r
}

// series returns the counters of (r, policy), adding them (or falling back
// to otherPolicy once the route's cap is reached) on first sight.
func (c *Collector) series(r *route, policy string) *series {
	m := *r.policies.Load()
	if s, ok := m[policy]; ok {
		return s
	}
	if r.full.Load() && policy != noPolicy {
		if s, ok := m[otherPolicy]; ok {
			return s
		}
	}
	return c.addSeries(r, policy)
}

func (c *Collector) addSeries(r *route, policy string) *series {
	c.mu.Lock()
	defer c.mu.Unlock()
	old := *r.policies.Load()
	if s, ok := old[policy]; ok {
		return s
	}
	counted := policy != noPolicy && policy != otherPolicy
	if counted && r.named >= c.maxPolicies {
		r.full.Store(true)
		policy, counted = otherPolicy, false
		if s, ok := old[policy]; ok {
			return s
		}
	}
	policy = strings.Clone(policy)
	s := c.newSeries(r, policy)
	m := maps.Clone(old)
	m[policy] = s
	r.policies.Store(&m)
	if counted {
		r.named++
	}
	return s
}

// newSeries returns the series of (r, policy) with the children of the
// outcomes it counts created. Called with c.mu held.
func (c *Collector) newSeries(r *route, policy string) *series {
	s := &series{route: r, policy: labelValue(policy)}
	if s.policy == noPolicy {
		// Requests without a decision: skipped, failed, unclassified.
		c.resolve(s, ratewindow.Skipped, ratewindow.StoreErrorPassed, ratewindow.StoreErrorRejected,
			ratewindow.UnclassifiedRejected, ratewindow.UnclassifiedPassed)
	} else {
		c.resolve(s, ratewindow.Allowed, ratewindow.Denied, ratewindow.WouldDeny)
		c.resolveNear(s)
	}
	return s
}

// resolve creates the requests_total children of s for the outcomes given,
// so that they are exported (as zero) before the first such request.
// Called with c.mu held.
func (c *Collector) resolve(s *series, outcomes ...ratewindow.Outcome) {
	for _, o := range outcomes {
		if s.outcomes[o].Load() == nil {
			ctr := c.requests.WithLabelValues(s.route.name, s.policy, o.String())
			s.outcomes[o].Store(&ctr)
		}
	}
}

// count adds one to requests_total for s and outcome o.
func (c *Collector) count(s *series, o ratewindow.Outcome) {
	if p := s.outcomes[o].Load(); p != nil {
		(*p).Inc()
		return
	}
	// An outcome unusual for this policy label (a hand-made Event).
	c.mu.Lock()
	c.resolve(s, o)
	c.mu.Unlock()
	(*s.outcomes[o].Load()).Inc()
}

// resolveNear creates the near_limit_total child of s. Called with c.mu
// held.
func (c *Collector) resolveNear(s *series) {
	if s.near.Load() == nil {
		ctr := c.near.WithLabelValues(s.route.name, s.policy)
		s.near.Store(&ctr)
	}
}

// countNear adds one to near_limit_total for s.
func (c *Collector) countNear(s *series) {
	if p := s.near.Load(); p != nil {
		(*p).Inc()
		return
	}
	// A policy named like noPolicy, whose series was made for failures.
	c.mu.Lock()
	c.resolveNear(s)
	c.mu.Unlock()
	(*s.near.Load()).Inc()
}

// labelValue is name as a label value: Prometheus takes only valid UTF-8
// (client_golang panics otherwise), so any other byte becomes U+FFFD. The
// maps stay keyed by the name itself, so lookups need no conversion.
func labelValue(name string) string {
	if utf8.ValidString(name) {
		return name
	}
	return strings.ToValidUTF8(name, "\uFFFD")
}
