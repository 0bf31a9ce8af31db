package headers

import (
	"time"

	"github.com/ratewindow/ratewindow/core"
)

// maxInteger is the largest sf-integer (RFC 9651: at most 15 digits).
const maxInteger = 999_999_999_999_999

// decisionView is a decision seen as n policies with their states, so a
// hand-made Decision without Policies is handled like a one-policy one.
type decisionView struct {
	policies []core.Policy
	states   *[core.MaxPolicies]core.PolicyState
	bind     int
	single   [1]core.Policy
	one      [core.MaxPolicies]core.PolicyState
}

func view(d *core.Decision) decisionView {
	v := decisionView{policies: d.Policies, states: &d.States, bind: d.Index}
	if len(v.policies) == 0 || len(v.policies) > core.MaxPolicies {
		v.single[0] = d.Policy
		if v.single[0].Limit == 0 {
			v.single[0].Limit = d.Limit
		}
		v.one[0] = core.PolicyState{Allowed: d.Allowed, Remaining: d.Remaining, ResetAfter: d.ResetAfter, RetryAfter: d.RetryAfter}
		v.policies = v.single[:]
		v.states = &v.one
		v.bind = 0
	}
	if v.bind < 0 || v.bind >= len(v.policies) {
		v.bind = 0
	}
	return v
}

// limit is policy i's quota.
func (v *decisionView) limit(i int) int64 { return clampInt(v.policies[i].Limit) }

// remaining is policy i's r: 0 when it denies, else its Remaining.
func (v *decisionView) remaining(i int) int64 {
	s := &v.states[i]
	if !s.Allowed {
		return 0
	}
	return clampInt(s.Remaining)
}

// reset is policy i's t in whole seconds, rounded up: RetryAfter when it
// denies, else ResetAfter.
func (v *decisionView) reset(i int) int64 {
	s := &v.states[i]
	if !s.Allowed {
		return ceilSeconds(s.RetryAfter)
	}
	return ceilSeconds(s.ResetAfter)
}

// window is policy i's w: whole seconds, rounded up, at least 1.
func (v *decisionView) window(i int) int64 {
	w := ceilSeconds(v.policies[i].Window)
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
