// Package policytest gives the module's tests policies as a Limiter holds
// them, for tests that call a Store directly.
package policytest

import "github.com/ratewindow/ratewindow/core"

// Validate checks policies as a Limiter does and returns the Limiter's
// copy: default names filled in, ready to pass to a Store. Any problem is
// the error NewLimiter reports.
func Validate(policies []core.Policy) ([]core.Policy, error) {
	l, err := core.NewLimiter(noStore{}, policies)
	if err != nil {
		return nil, err
	}
	return l.Policies(), nil
}

// noStore is the Store of a Limiter that is only built, never asked.
type noStore struct{ core.Store }
