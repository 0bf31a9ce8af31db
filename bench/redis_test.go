package bench

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
	ululelimiter "github.com/ulule/limiter/v3"
	ululeredis "github.com/ulule/limiter/v3/drivers/store/redis"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/redisstore"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// The Redis comparison: ratewindow's Redis store (each algorithm),
// go-redis/redis_rate (GCRA, one Lua script), ulule/limiter's Redis store
// (fixed window from the first request, one Lua script), go-chi/httprate-redis
// (httprate's sliding window counter: MGET, then MULTI INCRBY EXPIRE, under
// httprate's one mutex) and a floor that no
// correct limiter can beat by much: a bare INCR + PEXPIRE pipeline (one
// round trip, no script, no check beyond the count).

// redisAllow decides one request of cost 1 for key and charges it when it
// is allowed.
type redisAllow func(ctx context.Context, key string) (bool, error)

// redisPeer is one Redis-backed limiter of the comparison.
type redisPeer struct {
	name      string
	algorithm string
	// new builds the limiter on rdb for limit requests per window, with
	// its keys under prefix where the library lets us choose one.
	new func(rdb *redis.Client, prefix string, limit int64, window time.Duration) (redisAllow, error)
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

func ratewindowRedis(name, algorithm string, alg core.Algorithm) redisPeer {
	return redisPeer{name: name, algorithm: algorithm,
		new: func(rdb *redis.Client, prefix string, limit int64, window time.Duration) (redisAllow, error) {
			var opts []redisstore.Option
			if prefix != "" {
				opts = append(opts, redisstore.WithPrefix(prefix))
			}
			store, err := redisstore.New(rdb, opts...)
			if err != nil {
				return nil, err
			}
			lim, err := core.NewLimiter(store, []core.Policy{core.Per(limit, window).Using(alg)})
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
func newRedisRate(rdb *redis.Client, prefix string, limit int64, window time.Duration) (redisAllow, error) {
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

func newUluleRedis(rdb *redis.Client, prefix string, limit int64, window time.Duration) (redisAllow, error) {
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

func newIncrExpire(rdb *redis.Client, prefix string, limit int64, window time.Duration) (redisAllow, error) {
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

// TestRedisPeers checks every adapter: limit requests pass, the next is
// denied, on a key of its own.
func TestRedisPeers(t *testing.T) {
	rdb := testredis.Standalone(t)
	ctx := context.Background()
	for _, p := range redisPeers() {
		t.Run(p.name, func(t *testing.T) {
			allow, err := p.new(rdb, testredis.Prefix(t), 3, time.Minute)
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
}

// Throughput benchmarks: a limit no run reaches (every call evaluates and
// charges), calls spread over redisBenchKeys keys.
const (
	redisBenchLimit  = 1_000_000_000
	redisBenchWindow = time.Minute
	redisBenchKeys   = 1024
)

// redisBenchClient is a client of the shared standalone server with a
// connection for every goroutine of the parallel runs.
func redisBenchClient(b *testing.B) *redis.Client {
	rdb := redis.NewClient(&redis.Options{Addr: testredis.Addr(b), PoolSize: 32 * runtime.GOMAXPROCS(0)})
	b.Cleanup(func() { _ = rdb.Close() })
	require.NoError(b, rdb.Ping(context.Background()).Err())
	return rdb
}

func redisBenchSetup(b *testing.B, rdb *redis.Client, p redisPeer) (redisAllow, []string) {
	allow, err := p.new(rdb, testredis.Prefix(b), redisBenchLimit, redisBenchWindow)
	require.NoError(b, err)
	keys := make([]string, redisBenchKeys)
	for i := range keys {
		keys[i] = fmt.Sprintf("user:%07d", i)
	}
	// Warm up: scripts cached, connections open.
	for _, k := range keys[:64] {
		_, err := allow(context.Background(), k)
		require.NoError(b, err)
	}
	return allow, keys
}

// redisCPU returns the CPU time (user + system) redis-server has used, in
// nanoseconds, from INFO cpu, or 0 when it cannot be read.
func redisCPU(rdb *redis.Client) int64 {
	info, err := rdb.Info(context.Background(), "cpu").Result()
	if err != nil {
		return 0
	}
	var total float64
	for _, line := range strings.Split(info, "\n") {
		name, value, ok := strings.Cut(strings.TrimSpace(line), ":")
		if ok && (name == "used_cpu_sys" || name == "used_cpu_user") {
			v, err := strconv.ParseFloat(value, 64)
			if err != nil {
				return 0
			}
			total += v
		}
	}
	return int64(total * 1e9)
}

// redisCPUMeter measures the CPU time of both sides of a benchmark loop:
// this process (cpu-ns/op, the client) and redis-server (redis-cpu-ns/op).
// The two share the machine's cores, so a limiter's throughput depends on
// both, and on a machine shared with other work they are steadier than
// wall-clock figures.
type redisCPUMeter struct {
	rdb            *redis.Client
	client, server int64
}

func startRedisCPU(rdb *redis.Client) redisCPUMeter {
	return redisCPUMeter{rdb: rdb, client: cpuTime(), server: redisCPU(rdb)}
}

// report adds cpu-ns/op and redis-cpu-ns/op; call it after the loop.
func (m redisCPUMeter) report(b *testing.B) {
	if b.N == 0 {
		return
	}
	if m.client != 0 {
		b.ReportMetric(float64(cpuTime()-m.client)/float64(b.N), "cpu-ns/op")
	}
	if m.server != 0 {
		b.ReportMetric(float64(redisCPU(m.rdb)-m.server)/float64(b.N), "redis-cpu-ns/op")
	}
}

// BenchmarkRedisSerial: one goroutine, the latency of one decision.
func BenchmarkRedisSerial(b *testing.B) {
	rdb := redisBenchClient(b)
	for _, p := range redisPeers() {
		b.Run(p.name, func(b *testing.B) {
			allow, keys := redisBenchSetup(b, rdb, p)
			ctx := context.Background()
			b.ReportAllocs()
			var cpu redisCPUMeter
			i := 0
			for b.Loop() {
				if i == 0 {
					cpu = startRedisCPU(rdb) // b.Loop restarts the timer on its first call
				}
				if _, err := allow(ctx, keys[i%redisBenchKeys]); err != nil {
					b.Fatal(err)
				}
				i++
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "decisions/s")
			cpu.report(b)
		})
	}
}

// BenchmarkRedisParallel: GOMAXPROCS×32 goroutines on one client, the
// throughput of one application process.
func BenchmarkRedisParallel(b *testing.B) {
	rdb := redisBenchClient(b)
	for _, p := range redisPeers() {
		b.Run(p.name, func(b *testing.B) {
			allow, keys := redisBenchSetup(b, rdb, p)
			ctx := context.Background()
			var next atomic.Int64
			b.ReportAllocs()
			b.SetParallelism(32)
			cpu := startRedisCPU(rdb)
			b.RunParallel(func(pb *testing.PB) {
				i := int(next.Add(1)) * 7919
				for pb.Next() {
					if _, err := allow(ctx, keys[i%redisBenchKeys]); err != nil {
						b.Error(err)
						return
					}
					i++
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "decisions/s")
			cpu.report(b)
		})
	}
}
