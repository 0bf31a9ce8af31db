// Package e2etest holds end-to-end tests of the rollout and failure
// promises the README and docs make, as an operator meets them: a real
// redis-server (internal/testredis) that the tests freeze, kill, restart or
// make slow; requests through the real adapters with the options the
// README recommends for production; and what the metrics Collector, the
// logging hooks and the deploy/ alert rules say meanwhile.
//
// The package has no code of its own outside its tests.
package e2etest
