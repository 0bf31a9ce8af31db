package core

import (
	"time"
	"unsafe"
)

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
	// Remaining, ResetAfter and RetryAfter are those of the binding policy
	// (see PolicyState). Allowed to RetryAfter are laid out as a
	// PolicyState is: the binding state is copied over them in one move.
	Remaining  int64
	ResetAfter time.Duration
	RetryAfter time.Duration
	// Result is the store's answer, embedded so that States, each policy's
	// state, reads as d.States; States[i] belongs to Policies[i]. It sits
	// on a 16-byte boundary: copies of a Decision then line up with the
	// store's 16-byte writes (store forwarding succeeds).
	Result
	// Limit is the binding policy's Limit.
	Limit int64
	// Index is the binding policy's position in Policies: on a denial the
	// one that denied with the longest RetryAfter; otherwise the one with
	// the least Remaining. Policy returns it.
	Index int
	// Policies are all the policies evaluated, in order. Shared with the
	// Limiter: read, never modify.
	Policies []Policy
	// Fallback reports that a stand-in made the decision instead of the
	// store: core/resilient's local fallback, on local counts, because the
	// store failed or its circuit breaker was open (the store answered
	// with ErrFallback). It is enforced like any other; hooks, metrics and
	// logs can tell it apart.
	Fallback bool
}

// State returns the state of Policies[i].
func (d *Decision) State(i int) PolicyState { return d.States[i] }

// Policy returns the binding policy, Policies[Index], or the zero Policy
// when Index does not index Policies (a zero or hand-made Decision).
//
// It is a method, not a field, because a Decision is copied on every
// request: a 48-byte field holding a string made each decision about
// 7 ns slower on a hot key (copies and write-barrier checks).
func (d *Decision) Policy() Policy {
	if uint(d.Index) < uint(len(d.Policies)) {
		return d.Policies[d.Index]
	}
	return Policy{}
}

// prefill writes the parts of a Decision for policies that do not depend
// on the store's answer: all of them but the state when there is one
// policy. It runs before the store is called so that these writes have
// reached the cache when the caller copies the Decision; a copy of fields
// written an instant before stalls the processor (store forwarding).
func prefill(d *Decision, policies []Policy) {
	d.Policies = policies
	if len(policies) == 1 {
		d.Limit = policies[0].Limit
	}
}

// decide completes the Decision d, prefilled and with the Result a store
// has just written, with the binding policy's state.
func decide(d *Decision) {
	policies := d.Policies
	if len(policies) == 1 {
		copyState(d, &d.States[0])
		return
	}
	allowed, bind := true, 0
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
	// The binding state carries the decision: it allowed if and only if
	// every policy did, and its RetryAfter is zero when it allowed.
	copyState(d, &d.States[bind])
	d.Index = bind
	d.Limit = policies[bind].Limit
}

// copyState copies the binding state *s over d's Allowed, Remaining,
// ResetAfter and RetryAfter as two 16-byte moves. Assigned field by field
// they are four scalar stores, and a caller copying the Decision an instant
// later reads them back 16 bytes at a time: a load spanning two pending
// stores stalls the processor until they reach the cache (store
// forwarding fails). On a hot key that stall was a sixth of a decision.
//
// It is sound because those four fields of Decision have the types and the
// offsets of PolicyState's fields, which the constants below check at
// compile time, and neither holds a pointer.
func copyState(d *Decision, s *PolicyState) {
	*(*[4]uint64)(unsafe.Pointer(d)) = *(*[4]uint64)(unsafe.Pointer(s))
}

// Compile-time layout checks for copyState: each index is a constant that
// must be 0, or the array index is out of range.
var _ = [1]struct{}{}[unsafe.Offsetof(Decision{}.Allowed)-unsafe.Offsetof(PolicyState{}.Allowed)] // both 0
var _ = [1]struct{}{}[unsafe.Offsetof(Decision{}.Remaining)-unsafe.Offsetof(PolicyState{}.Remaining)]
var _ = [1]struct{}{}[unsafe.Offsetof(Decision{}.ResetAfter)-unsafe.Offsetof(PolicyState{}.ResetAfter)]
var _ = [1]struct{}{}[unsafe.Offsetof(Decision{}.RetryAfter)-unsafe.Offsetof(PolicyState{}.RetryAfter)]
var _ = [1]struct{}{}[unsafe.Sizeof(PolicyState{})-32]
