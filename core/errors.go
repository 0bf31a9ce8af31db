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
)
