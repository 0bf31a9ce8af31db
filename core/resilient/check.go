package resilient

import (
	"fmt"

	"github.com/ratewindow/ratewindow/core"
)

var _ core.PolicyChecker = (*Store)(nil)

// CheckPolicies implements core.PolicyChecker, so NewLimiter and
// SetPolicies refuse policies that either store behind s cannot hold: it
// passes them to the primary, when the primary checks policies, and with
// WithFallback checks that the local fallback store, a memory store capped
// at WithLocalMaxKeys, can hold one key's entries under them, their Limits
// divided by the replicas (see core/memory's CheckPolicies).
func (s *Store) CheckPolicies(policies []core.Policy) error {
	if c, ok := s.primary.(core.PolicyChecker); ok {
		if err := c.CheckPolicies(policies); err != nil {
			return fmt.Errorf("resilient: primary store: %w", err)
		}
	}
	if s.fallback == nil {
		return nil
	}
	if err := s.fallback.store.(core.PolicyChecker).CheckPolicies(s.fallback.scale(policies)); err != nil {
		return fmt.Errorf("resilient: the local fallback store (WithFallback(%d): Limits divided by %[1]d) cannot hold these policies; "+
			"it is a memory store whose WithMaxKeys is WithLocalMaxKeys: %w", s.fallback.replicas, err)
	}
	return nil
}
