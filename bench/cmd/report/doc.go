// Command report runs the whole performance comparison of ratewindow and
// its peers and writes bench/RESULTS.md: the Go benchmarks of the bench
// module (memory and Redis, medians over -count runs), the HTTP comparison
// under wrk, the boundary-burst accuracy table and a CPU profile of
// ratewindow's hot path, with the machine and the date.
//
// Run it through scripts/bench, which starts the Redis servers the Redis
// benchmarks need. -quick makes a rough run of about two minutes.
//
// Usage, from the repository root:
//
//	./scripts/bench            # the full run, about 10 minutes
//	./scripts/bench -quick     # about two minutes
//	./scripts/bench -skip-http -bench 'Memory'   # only the in-memory benchmarks
//
// Rows are told apart by name: ratewindow-* rows are ours, a floor is
// named *floor*, bare* or incr-expire, every other row is a peer. Each
// table shows ratios against the fastest peer and the floor measured in the
// same run, and the "Targets of issues #2, #3 and #6" table checks each target.
package main
