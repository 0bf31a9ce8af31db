// Package deploy holds no code: it is the home of the monitoring files for
// the ratewindow middleware's metrics (package metrics), and of the test
// that checks them.
//
//   - grafana/ratewindow.json: a Grafana dashboard (requests by outcome,
//     denial and would-deny ratios, near-limit, fallback decisions, store
//     latency percentiles, circuit breaker state).
//   - prometheus/ratewindow.rules.yml: recording rules and alerts (breaker
//     open, store errors, 503s from a failing limiter, a sudden rise of
//     denials or of would-deny decisions), with promtool unit tests in
//     prometheus/ratewindow.rules.test.yml.
//
// The files assume the Collector's default names (no registry prefix). The
// test runs promtool check rules and promtool test rules on them, checks
// that the unit tests make every alert fire in one scenario and keep it
// quiet in another, checks every PromQL query of the dashboard with
// promtool (and that its would-deny ratio is the recording rule's, on an
// outage's series), and checks that every metric name they use is one a
// metrics.Collector exports.
package deploy
