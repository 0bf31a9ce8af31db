// Command report runs the whole performance comparison of ratewindow and
// its peers and writes bench/RESULTS.md: the Go benchmarks of the bench
// module (memory and Redis, medians over -count passes), the HTTP comparison
// under wrk, the boundary-burst accuracy table and CPU profiles of
// ratewindow's hot paths, with the machine and the date.
//
// Run it through scripts/bench, which starts the Redis servers (standalone
// and a three-master cluster) the Redis benchmarks need. -quick makes a
// rough run.
//
// Usage, from the repository root:
//
//	./scripts/bench            # the full run, about 30 to 35 minutes on 2 cores
//	./scripts/bench -quick     # about 5 minutes
//	./scripts/bench -skip-http -bench 'Memory'   # only the in-memory benchmarks
//
// Rows are told apart by name: ratewindow-* rows are ours, a floor is
// named *floor*, bare* or incr-expire, every other row is a peer. Each
// table shows what was measured and ratios against the peers and the floor
// measured in the same run; the report states no goals of its own.
package main
