// Package faulttest holds the reliability tests of ratewindow:
// what the limiter does when Redis stops, comes back, stalls or loses a
// cluster master, when application clocks disagree, under a flood of
// distinct keys, and through a bounded soak of real HTTP traffic.
//
// The package has no code of its own; everything is in its tests. They
// start their own redis-server processes (RATEWINDOW_REDIS_SERVER, set by
// ./scripts/test) on free loopback ports, so they can kill and restart them
// without disturbing the shared test servers, and they kill every process
// they start in t.Cleanup. Every test is bounded in requests and time; the
// whole package runs in well under a minute and a half.
//
// Run it with Redis up:
//
//	./scripts/test -run . ./internal/faulttest/...
//
// RATEWINDOW_SOAK=60s lengthens the soak test (default 5s).
package faulttest
