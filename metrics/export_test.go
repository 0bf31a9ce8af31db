package metrics

// Names the external tests use for unexported values.
const (
	BreakerClosed   = breakerClosed
	BreakerHalfOpen = breakerHalfOpen
	BreakerOpen     = breakerOpen
	NoPolicy        = noPolicy
	OtherPolicy     = otherPolicy
	OtherRoute      = otherRoute
	UnmatchedRoute  = unmatchedRoute
)
