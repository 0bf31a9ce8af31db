package core

import "time"

// PolicyState is one policy's part of a decision.
type PolicyState struct {
	// Allowed reports whether this policy alone would admit the request.
	Allowed bool
	// Remaining is how many units of cost this policy would admit right
	// now, after the request was charged (if it was). Never negative.
	Remaining int64
	// ResetAfter is how long until, with no further requests, this
	// policy's quota is whole again.
	ResetAfter time.Duration
	// RetryAfter, when Allowed is false, is the shortest wait after which
	// the same request, alone, is admitted by this policy. Zero otherwise.
	RetryAfter time.Duration
}

// Result is what a Store reports: the state of each policy, in the order
// the policies were given. Only the first len(policies) entries are used.
type Result struct {
	States [MaxPolicies]PolicyState
}

// Decision is a Limiter's answer for one request.
type Decision struct {
	// Allowed reports whether every policy admitted the request (and so,
	// from Allow or AllowN, its cost was charged; Peek charges nothing).
	Allowed bool
	// Remaining, ResetAfter and RetryAfter are those of the binding policy
	// (see PolicyState).
	Remaining  int64
	ResetAfter time.Duration
	RetryAfter time.Duration
	// Limit is the binding policy's Limit.
	Limit int64
	// Index is the binding policy's position in Policies: on a denial the
	// one that denied with the longest RetryAfter; otherwise the one with
	// the least Remaining and, of those, the longest ResetAfter (of two
	// policies used up together, the one that waits longer for more, so a
	// caller that comes back after ResetAfter is not refused by the
	// other). Policy returns it.
	Index int
	// Policies are all the policies evaluated, in order. Shared with the
	// Limiter: read, never modify.
	Policies []Policy
	// Fallback reports that a stand-in made the decision instead of the
	// store: core/resilient's local fallback, on local counts, because the
	// store failed or its circuit breaker was open. It is enforced like any
	// other; hooks, metrics and logs can tell it apart.
	Fallback bool

	// result holds each policy's state; States is the view of it.
	result Result
}

// States returns the state of each policy: States()[i] belongs to
// Policies[i]. It is a view of d's own storage (no copy, no allocation),
// as long-lived as d; a hook that keeps it must copy it. On a hand-made
// Decision, set Policies first, then write the states through the view.
func (d *Decision) States() []PolicyState {
	return d.result.States[:min(len(d.Policies), MaxPolicies)]
}

// Policy returns the binding policy, Policies[Index], or the zero Policy
// when Index does not index Policies (a zero or hand-made Decision).
func (d *Decision) Policy() Policy {
	if uint(d.Index) < uint(len(d.Policies)) {
		return d.Policies[d.Index]
	}
	return Policy{}
}

// decide completes the Decision d, whose Policies and result are set, with
// the binding policy's state.
func decide(d *Decision) {
	policies := d.Policies
	allowed, bind := true, 0
	for i := range policies {
		s := &d.result.States[i]
		if !s.Allowed {
			if allowed || s.RetryAfter > d.result.States[bind].RetryAfter {
				bind = i
			}
			allowed = false
			continue
		}
		if b := &d.result.States[bind]; allowed && (s.Remaining < b.Remaining ||
			s.Remaining == b.Remaining && s.ResetAfter > b.ResetAfter) {
			bind = i
		}
	}
	// The binding state carries the decision: it allowed if and only if
	// every policy did, and its RetryAfter is zero when it allowed.
	s := &d.result.States[bind]
	d.Allowed, d.Remaining, d.ResetAfter, d.RetryAfter = s.Allowed, s.Remaining, s.ResetAfter, s.RetryAfter
	d.Index = bind
	d.Limit = policies[bind].Limit
}
