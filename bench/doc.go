// Package bench compares ratewindow with its peers. It is a module of its
// own (github.com/ratewindow/ratewindow/bench, with a replace directive
// pointing at the library) so the peers' dependencies never enter the
// library's go.mod.
//
// The in-memory comparison (memory_test.go, package peers) and the HTTP one
// (package httpbench) need nothing but Go. The Redis comparison
// (redis_test.go, redismem_test.go) needs the Redis servers that
// ./scripts/test starts; without them its tests skip (and fail under
// CI=true). It sets ratewindow's Redis store, one row per algorithm, beside
// go-redis/redis_rate (GCRA), ulule/limiter's Redis store (fixed window from
// the first request) and a bare INCR+PEXPIRE pipeline, the floor of any
// one-round-trip limiter:
//
//	./scripts/test --exec sh -c 'cd bench && go test -run "^$" -bench "Redis(Serial|Parallel)" -benchtime 2s .'
//	./scripts/test --exec sh -c 'cd bench && go test -run "^$" -bench "Redis.*Memory" -benchtime 1x .'
//
// BenchmarkRedisSerial is the latency of one decision, BenchmarkRedisParallel
// the throughput of one process (GOMAXPROCS×32 goroutines on one client),
// both reported in decisions/s. BenchmarkRedisMemoryPerKey is what a tracked
// key costs in Redis (MEMORY USAGE, and the growth of INFO used_memory over
// 100,000 keys on a private, empty server); BenchmarkRedisLogMemoryPerUnit is
// what each unit held in a sliding log adds.
package bench
