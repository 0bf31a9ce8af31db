package headerfmt

import (
	"time"

	"github.com/ratewindow/ratewindow/core"
)

// maxInteger is the largest sf-integer (RFC 9651: at most 15 digits).
const maxInteger = 999_999_999_999_999

// decisionView is a decision seen as n policies with their states, so a
// hand-made Decision without Policies is handled like a one-policy one. It
// reads the decision's policies and states in place. It is small (three
// words per slice and two more), so building and returning one costs a few
// register moves.
type decisionView struct {
	policies []core.Policy
	states   []core.PolicyState
	bind     int
	// cached: policies are a limiter's, whose formatted set is worth
	// caching; false for a hand-made decision's stand-in policy.
	cached bool
}

// onePolicy holds the stand-in policy and state of a hand-made decision.
type onePolicy struct {
	policy [1]core.Policy
	state  [1]core.PolicyState
}

// view returns the view of d. A hand-made d (no Policies, or more than a
// Decision holds states for) is seen as the one policy and state written
// into one, which must outlive the view.
func view(d *core.Decision, one *onePolicy) decisionView {
	if n := len(d.Policies); n == 0 || n > core.MaxPolicies {
		return oneView(d, one)
	}
	bind := d.Index
	if uint(bind) >= uint(len(d.Policies)) {
		bind = 0
	}
	return decisionView{policies: d.Policies, states: d.States(), bind: bind, cached: true}
}

// oneView is the view of a hand-made d, as one policy.
func oneView(d *core.Decision, one *onePolicy) decisionView {
	one.policy[0] = d.Policy()
	if one.policy[0].Limit == 0 {
		one.policy[0].Limit = d.Limit
	}
	one.state[0] = core.PolicyState{Allowed: d.Allowed, Remaining: d.Remaining, ResetAfter: d.ResetAfter, RetryAfter: d.RetryAfter}
	return decisionView{policies: one.policy[:], states: one.state[:]}
}

// len is the number of policies.
func (v *decisionView) len() int { return len(v.policies) }

// stateOf returns policy i's state.
func (v *decisionView) stateOf(i int) *core.PolicyState { return &v.states[i] }

// policy returns policy i.
func (v *decisionView) policy(i int) *core.Policy { return &v.policies[i] }

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
// Retry-After, is never rounded down. A ResetAfter of a millisecond or less
// is 0 before the subtraction, which would wrap the most negative ones round
// to the largest.
func (v *decisionView) reset(i int) int64 {
	if s := v.stateOf(i); s.Allowed {
		if s.ResetAfter <= resolution {
			return 0
		}
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
