// Package bench compares ratewindow with its peers. It is a module of its
// own (github.com/ratewindow/ratewindow/bench, with a replace directive
// pointing at the library) so the peers' dependencies never enter the
// library's go.mod. It uses the library's public packages only.
//
// The in-memory comparison (memory_test.go, package peers) and the HTTP one
// (package httpbench, overhead_test.go) need nothing but Go. The Redis
// comparison (redis_test.go, redismem_test.go, logcost_test.go) needs the
// Redis servers that ./scripts/test and ./scripts/bench start (package
// internal/redisenv reads their addresses); without them its tests skip,
// and fail under CI=true. It sets ratewindow's Redis store, one row per
// algorithm, beside go-redis/redis_rate (GCRA), ulule/limiter's Redis store
// (fixed window from the first request), go-chi/httprate-redis and a bare
// INCR+PEXPIRE pipeline, the floor of any one-round-trip limiter, on the
// standalone server and on the three-master cluster:
//
//	./scripts/test --exec sh -c 'cd bench && go test -run "^$" -bench "Redis(Serial|Parallel)" -benchtime 2s .'
//	./scripts/test --exec sh -c 'cd bench && go test -run "^$" -bench "Redis.*Memory" -benchtime 1x .'
//
// BenchmarkRedisSerial is the latency of one decision (one goroutine),
// BenchmarkRedisParallel the throughput of one process (64 goroutines on
// one client); both report decisions/s, p50 and p99 latency and
// redis-server's CPU time per decision. BenchmarkRedisMemoryPerKey is what
// a tracked key costs in Redis (MEMORY USAGE, and the growth of INFO
// used_memory over 100,000 keys on a private, empty server);
// BenchmarkRedisLogMemoryPerUnit is what each unit held in a sliding log
// adds. BenchmarkSlidingLogCost sets a request of cost L = 1,000,000 beside
// one of cost 1 on the sliding log, in memory and on Redis.
//
// ./scripts/bench runs all of it, the HTTP comparison under wrk included,
// and writes RESULTS.md (bench/cmd/report).
package bench
