package resilient

// Names the external tests use for unexported values.
const (
	DefaultFailureThreshold = defaultFailureThreshold
	DefaultOpenInterval     = defaultOpenInterval
)
