package core

import "errors"

var (
	// ErrInvalidConfig is wrapped by every configuration error: a bad
	// policy, a nil store, too many policies. Such errors are returned by
	// constructors, never raised on the request path.
	ErrInvalidConfig = errors.New("ratewindow: invalid configuration")

	// ErrEmptyKey is returned when a limiter is asked about the empty key.
	ErrEmptyKey = errors.New("ratewindow: empty key")

	// ErrInvalidCost is returned when a request's cost is not positive or is
	// larger than the limit of one of the policies (it could never be
	// allowed, so a silent denial would be a lie).
	ErrInvalidCost = errors.New("ratewindow: invalid cost")

	// ErrFallback marks a Store answer that a stand-in made instead of the
	// store: core/resilient returns it, with a valid Result, when its local
	// fallback decided because the primary store failed or its circuit
	// breaker was open. A Limiter turns such an answer into an ordinary
	// Decision with Fallback set and a nil error. Any other caller of
	// Store.Take or Peek can do the same (the Result is valid) or treat it
	// as the failure it stands in for.
	ErrFallback = errors.New("ratewindow: decided by a local fallback, not by the store")
)
