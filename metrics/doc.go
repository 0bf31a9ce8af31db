// Package metrics exports what the ratewindow middleware decides as
// Prometheus metrics. A Collector is fed by the middleware's OnDecision hook
// and registered on any registry:
//
//	c, err := metrics.New()
//	...
//	prometheus.MustRegister(c)
//	mw, err := nethttp.New(limiter, ratewindow.WithOnDecision(c.Observe))
//
// With a circuit breaker in front of the store, let the Collector follow it:
//
//	store, err := resilient.New(primary, resilient.WithOnStateChange(c.BreakerStateChanged))
//
// # Metrics
//
//	ratewindow_requests_total{route, policy, outcome}      counter
//	ratewindow_near_limit_total{route, policy}             counter
//	ratewindow_fallback_decisions_total{route, outcome}    counter
//	ratewindow_store_call_duration_seconds{route}          histogram
//	ratewindow_circuit_breaker_state                       gauge
//
// requests_total counts every request the middleware saw. outcome is one of
// allowed, denied, would_deny (observe-only mode let a request through that
// enforcement would have denied), store_error_passed (the limiter failed
// and the request passed: fail open, or observe-only), store_error_rejected
// (the limiter failed and the request was answered 503: fail closed),
// skipped, unclassified_rejected (the request had no key, an invalid cost
// or no limiter, or its key func or limiter func failed after its client
// cancelled it, and was answered 400, or as WithUnclassifiedHandler
// says) and unclassified_passed (such a request passed uncounted:
// WithPassUnclassified, or observe-only). policy is the binding policy's
// name for the first three (the one that denied, or the one with the least
// quota left) and "none" for the others, which got no decision.
//
// Each middleware reports each request it sees: a request that goes
// through two middlewares (one per IP around the router, one per API key
// on a route) fed to one Collector is counted twice, once per decision,
// and one the first denies is not seen by the second. To count them apart,
// give each middleware its own Collector (see Collector).
//
// near_limit_total counts, per policy, the allowed requests after which
// that policy had at most 10% of its limit left (see WithNearLimit): a
// client close to being limited, worth an alert before the 429s start.
// Only the store's decisions count: one of core/resilient's local fallback
// reports the remaining quota of the instance's share (the limit divided
// by the replicas) beside the whole limit, and measured against the limit
// it would look near it long before the share runs out (with ten replicas,
// always).
//
// fallback_decisions_total counts the decisions that core/resilient's
// local fallback made because the store failed or its circuit breaker was
// open (core.Decision's Fallback), by outcome (allowed, denied or
// would_deny). They are also in requests_total, under the same outcome,
// enforced on local counts: each instance limits alone, on its share. So
// during an outage an instance that gets most of one client's requests (a
// load balancer that keeps its connections on one instance) denies, or
// would deny, that client at its share of the limit: subtract the
// fallback's would_deny from requests_total's before judging an
// observe-only canary, as the rules in deploy/ do.
//
// store_call_duration_seconds is the time of the one store call a limited
// request makes, so its count is the number of store calls. Skipped
// requests and key func failures make none. Behind core/resilient the
// store is the resilient Store: a call its open breaker stops (failing
// fast, or decided by the local fallback) takes microseconds and is
// counted too, so the quantiles fall, not rise, while the breaker is
// open. Read them beside fallback_decisions_total and the store errors.
//
// circuit_breaker_state is 0 while the breaker is closed, 1 half-open and 2
// open, once BreakerStateChanged is wired to resilient.WithOnStateChange.
// Over a Redis Cluster, where core/resilient keeps a breaker per master,
// it is the worst of them: 2 while any master's breaker is open (only that
// master's keys fail fast or fall back). Several stores may report to one
// Collector (two Redis stores, or two limiters each with its own
// resilient.Store): the gauge is then the worst state of all their
// breakers, so one store recovering never hides another still open. It is
// the state as of the breakers' last call: a breaker moves only when a call
// comes in, so after a blip opened it an instance that gets no more
// requests reads 2 until its next request probes the store and closes it.
// Open with requests failing or decided by the fallback is an outage; open
// with none is an idle instance (the alert in deploy/ tells them apart).
//
// To register several Collectors on one registry, register each through
// prometheus.WrapRegistererWith, which adds fixed labels (the names route,
// policy and outcome are taken), or prometheus.WrapRegistererWithPrefix,
// which prefixes the names (api_ratewindow_requests_total).
//
// # Label cardinality
//
// Every label value comes from configuration, never from the request:
// route is the route pattern the framework matched ("/items/{id}", not
// "/items/42"), and "unmatched" when there is none (the raw path is never
// used). At most WithMaxRoutes distinct patterns (default 100) get their
// own value; later ones share "other". The rate-limit key (an IP, an API
// key) is never a label. policy is the name given in code to a
// core.Policy, so it is bounded by the configuration; should names be
// built from data (per tenant, say), at most WithMaxPolicies of them per
// route (default 32) get their own value and later ones share "other".
//
// A route's series are exported from its first request on, at zero until
// counted: each policy's allowed, denied and would_deny, and, with policy
// "none", skipped, store_error_passed, store_error_rejected and the two
// unclassified outcomes; and its three fallback_decisions_total series.
// So a route's first store error is an increase from zero that rate()
// and increase() see, and an alert on it fires; first exported at 1, it
// would be no increase at all.
//
// # Cost on the request path
//
// Observe runs synchronously on every request. The first request on a new
// (route, policy) pair resolves its metric children under a lock; every
// later one reads lock-free maps and does atomic adds, without allocating.
package metrics
