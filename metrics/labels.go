package metrics

// Label values that stand in for unknown or overflowing ones, so that no
// label ever carries a raw path or key.
const (
	// unmatchedRoute is the route label of requests whose framework
	// reported no route pattern (Event.Route is empty), for example
	// net/http middleware mounted outside a ServeMux. The raw path is
	// never used: it would make one series per URL.
	unmatchedRoute = "unmatched"
	// otherRoute is the route label of requests on routes seen after the
	// WithMaxRoutes cap was reached.
	otherRoute = "other"
	// otherPolicy is the policy label of policies seen on a route after
	// the WithMaxPolicies cap was reached for it.
	otherPolicy = "other"
	// noPolicy is the policy label of requests that got no decision:
	// skipped ones and limiter failures.
	noPolicy = "none"
)

const (
	labelRoute   = "route"
	labelPolicy  = "policy"
	labelOutcome = "outcome"
)
