package metrics

import (
	"fmt"
	"math"

	"github.com/ratewindow/ratewindow/core"
)

// Defaults of the options.
const (
	// defaultNearLimit is the fraction of a policy's limit at or under
	// which an allowed request's remaining quota counts as near the limit.
	defaultNearLimit = 0.10
	// defaultMaxRoutes is how many distinct routes get their own label
	// value; requests on further routes are labelled "other".
	defaultMaxRoutes = 100
	// defaultMaxPolicies is how many distinct policy names each route
	// label gets; further ones are labelled "other".
	defaultMaxPolicies = 32
)

// defaultBuckets are the store call duration buckets, in seconds: from
// 50µs (an in-memory store) to 1s (a Redis call stuck until its timeout).
var defaultBuckets = []float64{
	0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005,
	0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
}

// Option configures a Collector.
type Option func(*config)

type config struct {
	nearLimit   float64
	maxRoutes   int
	maxPolicies int
	buckets     []float64
}

// WithNearLimit sets the fraction of a policy's limit at or under which an
// allowed request's remaining quota is counted in near_limit_total
// (default 0.10: remaining ≤ 10% of the limit). It must be in [0, 1].
func WithNearLimit(fraction float64) Option { return func(c *config) { c.nearLimit = fraction } }

// WithMaxRoutes caps the distinct values of the route label (default 100).
// The first n routes seen keep their pattern; later ones are counted under
// route="other". Requests whose framework matched no route are labelled
// route="unmatched"; neither label counts towards n. It must be at least 1.
func WithMaxRoutes(n int) Option { return func(c *config) { c.maxRoutes = n } }

// WithMaxPolicies caps the distinct values of the policy label per route
// (default 32), in case policy names are built from data (a tenant's
// name, say) rather than written in code. Later names on a route are
// counted under policy="other". Requests that got no decision (skipped,
// unclassified, store errors) are labelled policy="none"; neither label
// counts towards n. It must be at least 1.
func WithMaxPolicies(n int) Option { return func(c *config) { c.maxPolicies = n } }

// WithBuckets sets the upper bounds, in seconds, of the store call duration
// histogram (default: 50µs to 1s, from an in-memory store to a Redis call
// stuck until its timeout). They must be strictly increasing, and none
// NaN.
func WithBuckets(b []float64) Option {
	return func(c *config) { c.buckets = append([]float64(nil), b...) }
}

func (c *config) validate() error {
	switch {
	case !(c.nearLimit >= 0 && c.nearLimit <= 1):
		return fmt.Errorf("metrics: %w: WithNearLimit: fraction must be in [0, 1], got %v", core.ErrInvalidConfig, c.nearLimit)
	case c.maxRoutes < 1:
		return fmt.Errorf("metrics: %w: WithMaxRoutes: must be at least 1, got %d", core.ErrInvalidConfig, c.maxRoutes)
	case c.maxPolicies < 1:
		return fmt.Errorf("metrics: %w: WithMaxPolicies: must be at least 1, got %d", core.ErrInvalidConfig, c.maxPolicies)
	case len(c.buckets) == 0:
		return fmt.Errorf("metrics: %w: WithBuckets: no buckets", core.ErrInvalidConfig)
	}
	for i, b := range c.buckets {
		if math.IsNaN(b) {
			return fmt.Errorf("metrics: %w: WithBuckets: bound %d is NaN", core.ErrInvalidConfig, i)
		}
		if i > 0 && !(b > c.buckets[i-1]) {
			return fmt.Errorf("metrics: %w: WithBuckets: bounds must be strictly increasing, got %v after %v",
				core.ErrInvalidConfig, b, c.buckets[i-1])
		}
	}
	return nil
}
