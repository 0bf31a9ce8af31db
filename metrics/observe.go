package metrics

import (
	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
)

// unnamedPolicy labels a policy without a Name. A core.Limiter always
// names its policies, so only hand-made Events carry one.
const unnamedPolicy = "unnamed"

// Observe records one Event. Pass it to ratewindow.WithOnDecision. It
// counts the request under its route pattern, binding policy and outcome;
// counts it again under its route and outcome if core/resilient's local
// fallback made the decision; adds the store call's Latency to the
// duration histogram when the limiter was called; and, for a request the
// store allowed, counts every policy left near its limit (not for one the
// fallback allowed: see near_limit_total in the package documentation).
//
// In the steady state (routes and policies already seen) it takes no lock
// and allocates nothing.
func (c *Collector) Observe(ev ratewindow.Event) {
	if int(ev.Outcome) >= numOutcomes {
		return
	}
	r := c.route(ev.Route)
	d := &ev.Decision
	decided := len(d.Policies) > 0 &&
		(ev.Outcome == ratewindow.Allowed || ev.Outcome == ratewindow.Denied || ev.Outcome == ratewindow.WouldDeny)
	policy := noPolicy
	if decided {
		policy = policyLabel(d.Policy().Name)
	}
	c.count(c.series(r, policy), ev.Outcome)
	if decided && d.Fallback {
		r.fallback[ev.Outcome].Inc()
	}

	// A decision means one store call was made. A failure made one too
	// if it took any time: a key func or limiter func failure reports a
	// zero Latency, as does a skipped request.
	if decided || ev.Latency > 0 {
		r.duration.Observe(ev.Latency.Seconds())
	}

	// A fallback decision's Remaining is counted against the instance's
	// local share of the limit (the Limit divided by the replicas), its
	// Limit is the whole one: measured against the Limit, with ten
	// replicas, every request the fallback admits would look near it.
	// The Collector cannot know the share, so it counts only the store's
	// decisions here; the fallback's are in fallback_decisions_total.
	if decided && ev.Outcome == ratewindow.Allowed && !d.Fallback {
		n := min(len(d.Policies), core.MaxPolicies)
		for i := range n {
			p := &d.Policies[i]
			if float64(d.States()[i].Remaining) <= c.nearLimit*float64(p.Limit) {
				c.countNear(c.series(r, policyLabel(p.Name)))
			}
		}
	}
}

// policyLabel is the label value for a policy named name.
func policyLabel(name string) string {
	if name == "" {
		return unnamedPolicy
	}
	return name
}
