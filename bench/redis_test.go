package bench

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
	ululelimiter "github.com/ulule/limiter/v3"
	ululeredis "github.com/ulule/limiter/v3/drivers/store/redis"

	"github.com/ratewindow/ratewindow/bench/internal/redisenv"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/redisstore"
)

// The Redis comparison: ratewindow's Redis store (each algorithm),
// go-redis/redis_rate (GCRA, one Lua script), ulule/limiter's Redis store
// (fixed window from the first request, one Lua script), go-chi/httprate-redis
// (httprate's sliding window counter: MGET, then MULTI INCRBY EXPIRE, under
// httprate's one mutex) and a floor that no correct limiter can beat by
// much: a bare INCR + PEXPIRE pipeline (one round trip, no script, no check
// beyond the count).

// redisAllow decides one request of cost 1 for key and charges it when it
// is allowed.
type redisAllow func(ctx context.Context, key string) (bool, error)

// redisPeer is one Redis-backed limiter of the comparison.
type redisPeer struct {
	name      string
	algorithm string
	// standaloneOnly is set for limiters that cannot run on a Redis
	// Cluster (httprate-redis reads two keys of different slots at once).
	standaloneOnly bool
	// new builds the limiter on rdb for limit requests per window, with
	// its keys under prefix where the library lets us choose one.
	new func(rdb redis.UniversalClient, prefix string, limit int64, window time.Duration) (redisAllow, error)
	// usageMatch is the SCAN pattern of the Redis keys of tracked keys
	// under the default prefix, when they do not contain the tracked key
	// (BenchmarkRedisMemoryPerKey); "" means "*user:*".
	usageMatch string
}

func redisPeers() []redisPeer {
	return []redisPeer{
		ratewindowRedis("ratewindow-fixed", "fixed window", core.FixedWindow),
		ratewindowRedis("ratewindow-sliding", "sliding window counter", core.SlidingWindow),
		ratewindowRedis("ratewindow-log", "sliding log", core.SlidingLog),
		{name: "redis_rate", algorithm: "GCRA", new: newRedisRate},
		{name: "ulule", algorithm: "fixed window from first request", new: newUluleRedis},
		httprateRedisPeer(),
		{name: "incr-expire", algorithm: "floor: INCR+PEXPIRE pipeline", new: newIncrExpire},
	}
}

// newRatewindowRedis builds a limiter of one policy on ratewindow's Redis
// store, its keys under prefix ("" is the store's default).
func newRatewindowRedis(rdb redis.UniversalClient, prefix string, p core.Policy, opts ...core.Option) (*core.Limiter, error) {
	var sopts []redisstore.Option
	if prefix != "" {
		sopts = append(sopts, redisstore.WithPrefix(prefix))
	}
	store, err := redisstore.New(rdb, sopts...)
	if err != nil {
		return nil, err
	}
	return core.NewLimiter(store, []core.Policy{p}, opts...)
}

func ratewindowRedis(name, algorithm string, alg core.Algorithm) redisPeer {
	return redisPeer{name: name, algorithm: algorithm,
		new: func(rdb redis.UniversalClient, prefix string, limit int64, window time.Duration) (redisAllow, error) {
			lim, err := newRatewindowRedis(rdb, prefix, core.Per(limit, window).Using(alg))
			if err != nil {
				return nil, err
			}
			return func(ctx context.Context, key string) (bool, error) {
				d, err := lim.Allow(ctx, key)
				return d.Allowed, err
			}, nil
		}}
}

// newRedisRate: redis_rate's keys are "rate:" + key; the prefix goes into
// the key.
func newRedisRate(rdb redis.UniversalClient, prefix string, limit int64, window time.Duration) (redisAllow, error) {
	l := redis_rate.NewLimiter(rdb)
	rate := redis_rate.Limit{Rate: int(limit), Burst: int(limit), Period: window}
	if prefix != "" {
		prefix += ":"
	}
	return func(ctx context.Context, key string) (bool, error) {
		r, err := l.Allow(ctx, prefix+key, rate)
		if err != nil {
			return false, err
		}
		return r.Allowed > 0, nil
	}, nil
}

func newUluleRedis(rdb redis.UniversalClient, prefix string, limit int64, window time.Duration) (redisAllow, error) {
	if prefix == "" {
		prefix = ululelimiter.DefaultPrefix
	}
	store, err := ululeredis.NewStoreWithOptions(rdb, ululelimiter.StoreOptions{Prefix: prefix})
	if err != nil {
		return nil, err
	}
	l := ululelimiter.New(store, ululelimiter.Rate{Period: window, Limit: limit})
	return func(ctx context.Context, key string) (bool, error) {
		c, err := l.Get(ctx, key)
		return err == nil && !c.Reached, err
	}, nil
}

func newIncrExpire(rdb redis.UniversalClient, prefix string, limit int64, window time.Duration) (redisAllow, error) {
	if prefix == "" {
		prefix = "floor"
	}
	prefix += ":"
	return func(ctx context.Context, key string) (bool, error) {
		k := prefix + key
		pipe := rdb.Pipeline()
		n := pipe.Incr(ctx, k)
		pipe.PExpire(ctx, k, window)
		if _, err := pipe.Exec(ctx); err != nil {
			return false, err
		}
		return n.Val() <= limit, nil
	}, nil
}

// redisDeployment is one kind of Redis the comparison runs on.
type redisDeployment struct {
	name string // "standalone" or "cluster"
	// client returns a client with poolSize connections (per node).
	client func(tb testing.TB, poolSize int) redis.UniversalClient
}

func redisDeployments() []redisDeployment {
	return []redisDeployment{
		{"standalone", func(tb testing.TB, n int) redis.UniversalClient { return redisenv.Standalone(tb, n) }},
		{"cluster", func(tb testing.TB, n int) redis.UniversalClient { return redisenv.Cluster(tb, n) }},
	}
}

// TestRedisPeers checks every adapter on every deployment: limit requests
// pass, the next is denied, on a key of its own.
func TestRedisPeers(t *testing.T) {
	ctx := context.Background()
	for _, dep := range redisDeployments() {
		t.Run(dep.name, func(t *testing.T) {
			rdb := dep.client(t, 0)
			for _, p := range redisPeers() {
				if p.standaloneOnly && dep.name != "standalone" {
					continue
				}
				t.Run(p.name, func(t *testing.T) {
					// Fixed windows of a minute count exactly only
					// within one: start away from its end.
					if now := time.Now(); now.Truncate(time.Minute).Add(time.Minute).Sub(now) < 2*time.Second {
						time.Sleep(2 * time.Second)
					}
					allow, err := p.new(rdb, redisenv.Prefix(t), 3, time.Minute)
					require.NoError(t, err)
					for i, want := range []bool{true, true, true, false, false} {
						got, err := allow(ctx, "user:0000001")
						require.NoError(t, err)
						require.Equal(t, want, got, "request %d", i)
					}
					// Another key has its own count.
					got, err := allow(ctx, "user:0000002")
					require.NoError(t, err)
					require.True(t, got)
				})
			}
		})
	}
}

// Throughput benchmarks: a limit no run reaches (every call evaluates and
// charges), calls spread over redisBenchKeys keys.
const (
	redisBenchLimit  = 1_000_000_000
	redisBenchWindow = time.Minute
	redisBenchKeys   = 1024
	// redisGoroutines is the concurrency of BenchmarkRedisParallel: one
	// busy application process.
	redisGoroutines = 64
)

// redisBenchSetup builds p's limiter on rdb with a limit no run reaches
// and warms it up from the given number of goroutines (scripts loaded,
// every connection the run needs open). It returns the limiter and the
// keys to spread calls over.
func redisBenchSetup(b *testing.B, rdb redis.UniversalClient, p redisPeer, goroutines int) (redisAllow, []string) {
	allow, err := p.new(rdb, redisenv.Prefix(b), redisBenchLimit, redisBenchWindow)
	require.NoError(b, err)
	keys := make([]string, redisBenchKeys)
	for i := range keys {
		keys[i] = fmt.Sprintf("user:%07d", i)
	}
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < max(256, 4*goroutines); i += goroutines {
				if _, err := allow(context.Background(), keys[i%redisBenchKeys]); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(b, err)
	}
	return allow, keys
}

// BenchmarkRedisSerial: one goroutine, the latency of one decision, on the
// standalone server and on the three-master cluster.
func BenchmarkRedisSerial(b *testing.B) {
	benchRedis(b, 1)
}

// BenchmarkRedisParallel: redisGoroutines goroutines on one client, the
// throughput of one application process, on the standalone server and on
// the three-master cluster.
func BenchmarkRedisParallel(b *testing.B) {
	benchRedis(b, redisGoroutines)
}

// benchRedis runs every peer on every deployment from the given number of
// goroutines. It reports decisions/s, the median and 99th percentile
// latency of one decision (p50-us, p99-us), and the CPU time per decision
// of this process (cpu-ns/op) and of redis-server (redis-cpu-us/op, all
// masters of the cluster together).
func benchRedis(b *testing.B, goroutines int) {
	for _, dep := range redisDeployments() {
		b.Run(dep.name, func(b *testing.B) {
			rdb := dep.client(b, goroutines+8)
			for _, p := range redisPeers() {
				if p.standaloneOnly && dep.name != "standalone" {
					continue
				}
				b.Run(p.name, func(b *testing.B) {
					allow, keys := redisBenchSetup(b, rdb, p, goroutines)
					ctx := context.Background()
					b.ReportAllocs()
					cpu := startRedisCPU(rdb)
					lat := runConcurrently(b, goroutines, func(i int) error {
						_, err := allow(ctx, keys[(i*7919)%redisBenchKeys])
						return err
					})
					b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "decisions/s")
					lat.report(b)
					cpu.report(b)
				})
			}
		})
	}
}

// redisCPU returns the CPU time (user + system) redis-server has used, in
// nanoseconds, from INFO cpu (summed over the masters of a cluster), or 0
// when it cannot be read.
func redisCPU(rdb redis.UniversalClient) int64 {
	if rdb == nil {
		return 0
	}
	ctx := context.Background()
	if c, ok := rdb.(*redis.ClusterClient); ok {
		var (
			mu     sync.Mutex
			total  int64
			failed bool
		)
		err := c.ForEachMaster(ctx, func(_ context.Context, n *redis.Client) error {
			v := redisCPU(n)
			mu.Lock()
			defer mu.Unlock()
			total += v
			failed = failed || v == 0
			return nil
		})
		if err != nil || failed {
			return 0
		}
		return total
	}
	info, err := rdb.Info(ctx, "cpu").Result()
	if err != nil {
		return 0
	}
	var total float64
	for _, line := range strings.Split(info, "\n") {
		name, value, ok := strings.Cut(strings.TrimSpace(line), ":")
		if ok && (name == "used_cpu_sys" || name == "used_cpu_user") {
			var v float64
			if _, err := fmt.Sscan(value, &v); err != nil {
				return 0
			}
			total += v
		}
	}
	return int64(total * 1e9)
}

// redisCPUMeter measures the CPU time of both sides of a benchmark loop:
// this process (cpu-ns/op, the client) and redis-server (redis-cpu-us/op).
// The two share the machine's cores, so a limiter's throughput depends on
// both, and on a machine shared with other work they are steadier than
// wall-clock figures.
type redisCPUMeter struct {
	rdb            redis.UniversalClient
	client, server int64
}

func startRedisCPU(rdb redis.UniversalClient) redisCPUMeter {
	return redisCPUMeter{rdb: rdb, client: cpuTime(), server: redisCPU(rdb)}
}

// report adds cpu-ns/op and redis-cpu-us/op; call it after the loop.
func (m redisCPUMeter) report(b *testing.B) {
	if b.N == 0 {
		return
	}
	if m.client != 0 {
		b.ReportMetric(float64(cpuTime()-m.client)/float64(b.N), "cpu-ns/op")
	}
	if m.server != 0 {
		if now := redisCPU(m.rdb); now != 0 {
			b.ReportMetric(float64(now-m.server)/1e3/float64(b.N), "redis-cpu-us/op")
		}
	}
}
