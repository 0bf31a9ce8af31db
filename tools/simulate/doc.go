// Command simulate replays the same traffic against the three rate-limiting
// algorithms of package core and writes what they admitted: a comparison
// plot (docs/algorithms.svg) and the accuracy tables (docs/accuracy.md).
//
// Run it from the repository root with one command:
//
//	go run ./tools/simulate -out docs
//
// # How the simulation works
//
// Every request costs one unit and carries a client (the rate-limit key) and
// an instant in whole milliseconds. For each algorithm (fixed window,
// sliding window counter, sliding log) a fresh [core.Limiter] on the
// in-memory store (core/memory) and a fake clock (internal/clocktest) replays the whole
// request stream in time order, with the same policy (100 requests per 10 s
// by default). The algorithms never see each other's decisions: each one is
// fed the same stream independently.
//
// From the admitted instants the program computes, exactly, the largest
// number of requests one client had admitted in any rolling interval
// (t − W, t], sliding the interval over every admission. The sliding log is
// exact, so it is also the reference the other two are compared with,
// decision by decision.
//
// # Determinism
//
// Random traffic comes from a PCG generator with a fixed seed, and every
// coordinate and figure is computed in integers (or one correctly rounded
// division), so running the command again writes identical bytes. The
// package tests regenerate both files and fail if the checked-in copies in
// docs/ are out of date.
package main
