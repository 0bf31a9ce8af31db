// Package callcheck holds the check every store of the module makes on a
// call before deciding it, so a call outside the core.Store contract is
// refused with an error, never a panic or a silent pass.
package callcheck

import (
	"fmt"

	"github.com/ratewindow/ratewindow/core"
)

// Valid reports whether a store can decide the call: one to
// core.MaxPolicies policies and a cost of at least one. It is small
// enough to inline, for a hot path that calls Check only when it fails.
func Valid(policies []core.Policy, cost int64) bool {
	return len(policies) > 0 && len(policies) <= core.MaxPolicies && cost > 0
}

// Check rejects a call no store can decide: no policy, more than
// core.MaxPolicies, or a cost below one (ErrInvalidCost). A Limiter never
// makes such a call; a caller of Store methods directly can.
func Check(policies []core.Policy, cost int64) error {
	switch {
	case len(policies) == 0 || len(policies) > core.MaxPolicies:
		return fmt.Errorf("%w: %d policies, want 1 to %d", core.ErrInvalidConfig, len(policies), core.MaxPolicies)
	case cost <= 0:
		return fmt.Errorf("%w: cost must be positive, got %d", core.ErrInvalidCost, cost)
	}
	return nil
}
