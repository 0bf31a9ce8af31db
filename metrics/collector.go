package metrics

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
)

// numOutcomes is the number of ratewindow.Outcome values.
const numOutcomes = int(ratewindow.UnclassifiedPassed) + 1

// numDecided is the number of outcomes of a decision: Allowed, Denied and
// WouldDeny, the first three Outcome values.
const numDecided = int(ratewindow.WouldDeny) + 1

// Collector turns the middleware's Events into Prometheus metrics. Feed it
// with ratewindow.WithOnDecision(c.Observe), register it on a registry,
// and, if the store has a circuit breaker, pass c.BreakerStateChanged to
// resilient.WithOnStateChange (several stores may pass it to one
// Collector: the gauge reads the worst of their breakers).
//
// A Collector is safe for concurrent use. One Collector may observe several
// middleware instances; to keep them apart instead, give each its own
// Collector and register it through prometheus.WrapRegistererWith (a fixed
// label such as limiter="admin") or prometheus.WrapRegistererWithPrefix.
type Collector struct {
	requests    *prometheus.CounterVec
	near        *prometheus.CounterVec
	fallback    *prometheus.CounterVec
	duration    *prometheus.HistogramVec
	breaker     prometheus.Gauge
	breakers    breakers
	nearLimit   float64
	maxRoutes   int
	maxPolicies int

	// routes maps a route label value to its series. The map is never
	// changed once published: additions copy it under mu, so Observe
	// reads without a lock.
	routes atomic.Pointer[map[string]*route]
	// full is set once maxRoutes routes have their own label value.
	full atomic.Bool
	// mu serialises additions to routes and to every route's series.
	mu sync.Mutex
	// named counts the routes that count towards maxRoutes.
	named int
}

// New returns a Collector. Invalid options are reported as an error
// wrapping core.ErrInvalidConfig that names the option.
func New(opts ...Option) (*Collector, error) {
	cfg := config{
		nearLimit:   defaultNearLimit,
		maxRoutes:   defaultMaxRoutes,
		maxPolicies: defaultMaxPolicies,
		buckets:     defaultBuckets,
	}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	c := &Collector{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Subsystem: "ratewindow", Name: "requests_total",
			Help: "Requests seen by the rate-limit middleware, by route pattern, binding policy and outcome.",
		}, []string{labelRoute, labelPolicy, labelOutcome}),
		near: prometheus.NewCounterVec(prometheus.CounterOpts{
			Subsystem: "ratewindow", Name: "near_limit_total",
			Help: "Allowed requests that left a policy with at most the near-limit fraction of its limit.",
		}, []string{labelRoute, labelPolicy}),
		fallback: prometheus.NewCounterVec(prometheus.CounterOpts{
			Subsystem: "ratewindow", Name: "fallback_decisions_total",
			Help: "Decisions made by core/resilient's local fallback while the store failed, by route pattern and outcome.",
		}, []string{labelRoute, labelOutcome}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Subsystem: "ratewindow", Name: "store_call_duration_seconds",
			Help:    "Duration of the limiter's store call, one per limited request, by route pattern.",
			Buckets: cfg.buckets,
		}, []string{labelRoute}),
		breaker: prometheus.NewGauge(prometheus.GaugeOpts{
			Subsystem: "ratewindow", Name: "circuit_breaker_state",
			Help: "Worst state of the stores' circuit breakers: 0 all closed (or no breaker), 1 one half-open, 2 one open.",
		}),
		nearLimit:   cfg.nearLimit,
		maxRoutes:   cfg.maxRoutes,
		maxPolicies: cfg.maxPolicies,
	}
	c.routes.Store(&map[string]*route{})
	// Names and const labels are checked here rather than at the caller's
	// registration, so a mistake surfaces as a configuration error.
	if err := prometheus.NewPedanticRegistry().Register(c); err != nil {
		return nil, fmt.Errorf("metrics: %w: %w", core.ErrInvalidConfig, err)
	}
	return c, nil
}

// Describe sends the descriptors of the Collector's five metrics.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	c.requests.Describe(ch)
	c.near.Describe(ch)
	c.fallback.Describe(ch)
	c.duration.Describe(ch)
	c.breaker.Describe(ch)
}

// Collect sends the current values of every series.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	c.requests.Collect(ch)
	c.near.Collect(ch)
	c.fallback.Collect(ch)
	c.duration.Collect(ch)
	c.breaker.Collect(ch)
}
