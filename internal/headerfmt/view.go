package headerfmt

import (
	"time"

	"github.com/ratewindow/ratewindow/core"
)

// maxInteger is the largest sf-integer (RFC 9651: at most 15 digits).
const maxInteger = 999_999_999_999_999

// decisionView is a decision seen as n policies with their states, so a
// hand-made Decision without Policies is handled like a one-policy one. It
// reads the decision's states in place and holds no pointer into itself,
// so it stays on the stack.
type decisionView struct {
	policies []core.Policy      // nil: the single policy and state below
	states   []core.PolicyState // nil: the single state below
	single   core.Policy
	state    core.PolicyState
	bind     int
}

func view(d *core.Decision) decisionView {
	v := decisionView{policies: d.Policies, states: d.States(), bind: d.Index}
	if len(v.policies) == 0 || len(v.policies) > core.MaxPolicies {
		v.policies = nil
		v.states = nil
		v.single = d.Policy()
		if v.single.Limit == 0 {
			v.single.Limit = d.Limit
		}
		v.state = core.PolicyState{Allowed: d.Allowed, Remaining: d.Remaining, ResetAfter: d.ResetAfter, RetryAfter: d.RetryAfter}
		v.bind = 0
	}
	if v.bind < 0 || v.bind >= v.len() {
		v.bind = 0
	}
	return v
}

// len is the number of policies.
func (v *decisionView) len() int {
	if v.policies == nil {
		return 1
	}
	return len(v.policies)
}

// stateOf returns policy i's state.
func (v *decisionView) stateOf(i int) *core.PolicyState {
	if v.states == nil {
		return &v.state
	}
	return &v.states[i]
}

// policy returns policy i.
func (v *decisionView) policy(i int) *core.Policy {
	if v.policies == nil {
		return &v.single
	}
	return &v.policies[i]
}

// limit is policy i's quota.
func (v *decisionView) limit(i int) int64 { return clampInt(v.policy(i).Limit) }

// remaining is policy i's r: 0 when it denies, else its Remaining.
func (v *decisionView) remaining(i int) int64 {
	s := v.stateOf(i)
	if !s.Allowed {
		return 0
	}
	return clampInt(s.Remaining)
}

// reset is policy i's t in whole seconds, rounded up: RetryAfter when it
// denies, else ResetAfter.
//
// On an allowed response the stores' millisecond resolution is forgiven
// first: the sliding log records an admission at its instant rounded up to
// the millisecond, so a log that has just admitted a request reports a
// ResetAfter of up to a millisecond over its window, and a 1 s window would
// read t=2. The t of an allowed response is a pacing hint; a denial's t, like
// Retry-After, is never rounded down.
func (v *decisionView) reset(i int) int64 {
	if s := v.stateOf(i); s.Allowed {
		return ceilSeconds(s.ResetAfter - resolution)
	}
	return ceilSeconds(v.resetAfter(i))
}

// resolution is the stores' clock resolution.
const resolution = time.Millisecond

// resetAfter is policy i's time until more quota: RetryAfter when it
// denies, else ResetAfter.
func (v *decisionView) resetAfter(i int) time.Duration {
	s := v.stateOf(i)
	if !s.Allowed {
		return s.RetryAfter
	}
	return s.ResetAfter
}

// window is policy i's w: whole seconds, rounded up, at least 1.
func (v *decisionView) window(i int) int64 {
	w := ceilSeconds(v.policy(i).Window)
	if w < 1 {
		w = 1
	}
	return w
}

// ceilSeconds rounds d up to whole seconds, 0 for d ≤ 0, capped at
// maxInteger.
func ceilSeconds(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	s := int64(d / time.Second)
	if d%time.Second != 0 {
		s++
	}
	return clampInt(s)
}

// clampInt keeps n within 0 and maxInteger.
func clampInt(n int64) int64 {
	switch {
	case n < 0:
		return 0
	case n > maxInteger:
		return maxInteger
	}
	return n
}
