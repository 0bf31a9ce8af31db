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
	// Allowed reports whether every policy admitted the request (and so
	// its cost was charged).
	Allowed bool
	// Limit, Remaining, ResetAfter and RetryAfter are those of the binding
	// policy.
	Limit      int64
	Remaining  int64
	ResetAfter time.Duration
	RetryAfter time.Duration
	// Policy is the binding policy: on a denial the one that denied with
	// the longest RetryAfter; otherwise the one with the least Remaining.
	Policy Policy
	// Index is the binding policy's position in Policies.
	Index int
	// Policies are all the policies evaluated, in order. Shared with the
	// Limiter: read, never modify.
	Policies []Policy
	// Result is the store's answer, embedded so that States, each policy's
	// state, reads as d.States; States[i] belongs to Policies[i]. A store
	// writes it in place, saving a copy on the hot path.
	Result
}

// State returns the state of Policies[i].
func (d *Decision) State(i int) PolicyState { return d.States[i] }

// decide fills the Decision d, whose Result a store has just written, with
// the binding policy's figures.
func decide(d *Decision, policies []Policy) {
	allowed, bind := true, 0
	if len(policies) == 1 {
		allowed = d.States[0].Allowed
	} else {
		for i := range policies {
			s := &d.States[i]
			if !s.Allowed {
				if allowed || s.RetryAfter > d.States[bind].RetryAfter {
					bind = i
				}
				allowed = false
				continue
			}
			if allowed && s.Remaining < d.States[bind].Remaining {
				bind = i
			}
		}
	}
	s := &d.States[bind]
	d.Allowed = allowed
	d.Policies = policies
	d.Index = bind
	d.Policy = policies[bind]
	d.Limit = policies[bind].Limit
	d.Remaining = s.Remaining
	d.ResetAfter = s.ResetAfter
	if !allowed {
		d.RetryAfter = s.RetryAfter
	}
}
