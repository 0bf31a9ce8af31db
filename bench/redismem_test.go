package bench

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/bench/internal/redisenv"
	"github.com/ratewindow/ratewindow/core"
)

// memKeys is the number of tracked keys whose Redis memory is measured.
const memKeys = 100_000

// BenchmarkRedisMemoryPerKey measures what one tracked key costs in Redis
// for every limiter of the comparison: memKeys keys get one request each (a
// limit of 10 per hour, so that no
// limiter's key expires during the run; the default prefixes), on a private redis-server
// started empty for each limiter, so no other test's keys count. It reports
//
//	info-bytes/key   the growth of INFO used_memory over memKeys keys: all
//	                 of it, hash tables and expiry entries included
//	usage-bytes/key  the mean MEMORY USAGE of 1,000 of the keys
//
// It does its work once, whatever b.N: run it with -benchtime 1x.
func BenchmarkRedisMemoryPerKey(b *testing.B) {
	for _, p := range redisPeers() {
		b.Run(p.name, func(b *testing.B) {
			rdb := redis.NewClient(&redis.Options{Addr: redisenv.Server(b), PoolSize: 64})
			b.Cleanup(func() { _ = rdb.Close() })
			allow, err := p.new(rdb, "", 10, time.Hour)
			require.NoError(b, err)
			ctx := context.Background()

			// Connections and scripts in place before the first reading.
			var wg sync.WaitGroup
			for g := range 64 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, err := allow(ctx, fmt.Sprintf("warmup:%d", g))
					require.NoError(b, err)
				}()
			}
			wg.Wait()
			before := usedMemory(b, rdb)
			dbBefore := rdb.DBSize(ctx).Val()

			b.ResetTimer()
			fillKeys(b, memKeys, func(key string) error {
				_, err := allow(ctx, key)
				return err
			})
			after := usedMemory(b, rdb)
			added := rdb.DBSize(ctx).Val() - dbBefore
			require.EqualValues(b, memKeys, added, "one Redis key per tracked key")

			b.ReportMetric(float64(after-before)/memKeys, "info-bytes/key")
			match := p.usageMatch
			if match == "" {
				match = "*user:*"
			}
			b.ReportMetric(meanUsage(b, rdb, match, 1000), "usage-bytes/key")
		})
	}
}

// usedMemory reads used_memory from INFO memory.
func usedMemory(b *testing.B, rdb *redis.Client) int64 {
	info, err := rdb.Info(context.Background(), "memory").Result()
	require.NoError(b, err)
	for _, line := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, "used_memory:"); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			require.NoError(b, err)
			return n
		}
	}
	b.Fatal("INFO memory has no used_memory")
	return 0
}

// meanUsage is the mean MEMORY USAGE of n keys (SCAN order) that match
// match: tracked keys, not warm-up keys, where the key names tell them apart.
func meanUsage(b *testing.B, rdb *redis.Client, match string, n int) float64 {
	ctx := context.Background()
	var total, count int64
	iter := rdb.Scan(ctx, 0, match, 200).Iterator()
	for iter.Next(ctx) && count < int64(n) {
		u, err := rdb.MemoryUsage(ctx, iter.Val()).Result()
		require.NoError(b, err)
		total += u
		count++
	}
	require.NoError(b, iter.Err())
	require.Positive(b, count)
	return float64(total) / float64(count)
}

// logKeys and logUnits shape BenchmarkRedisLogMemoryPerUnit: logKeys sliding
// logs holding logUnits units each.
const (
	logKeys  = 10_000
	logUnits = 100
)

// BenchmarkRedisLogMemoryPerUnit measures what one more unit in a sliding
// log costs: logKeys keys are charged logUnits units each (one call of cost
// logUnits per key), and the growth of INFO used_memory is divided by the
// units. A log never holds more units than its limit. Run it with
// -benchtime 1x.
func BenchmarkRedisLogMemoryPerUnit(b *testing.B) {
	rdb := redis.NewClient(&redis.Options{Addr: redisenv.Server(b), PoolSize: 64})
	b.Cleanup(func() { _ = rdb.Close() })
	lim, err := newRatewindowRedis(rdb, "", core.PerHour(logUnits).Using(core.SlidingLog))
	require.NoError(b, err)
	ctx := context.Background()
	_, err = lim.Allow(ctx, "warmup")
	require.NoError(b, err)
	before := usedMemory(b, rdb)

	b.ResetTimer()
	fillKeys(b, logKeys, func(key string) error {
		d, err := lim.AllowN(ctx, key, logUnits)
		if err == nil && !d.Allowed {
			err = fmt.Errorf("%s: %d units denied", key, logUnits)
		}
		return err
	})
	perKey := float64(usedMemory(b, rdb)-before) / logKeys
	b.ReportMetric(perKey, "info-bytes/key")
	b.ReportMetric(perKey/logUnits, "info-bytes/unit")
	b.ReportMetric(meanUsage(b, rdb, "*user:*", 1000), "usage-bytes/key")
}

// fillKeys calls take for the keys "user:0000000" to n-1 from 64 goroutines,
// then stops the benchmark timer and fails b on any error.
func fillKeys(b *testing.B, n int, take func(key string) error) {
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < n; i += 64 {
				if err := take(fmt.Sprintf("user:%07d", i)); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	close(errs)
	for err := range errs {
		require.NoError(b, err)
	}
}
