package redisstore_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/redisstore"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// memoryKeys is the number of tracked keys whose INFO used_memory growth
// TestMemoryPerKey measures: as many per bucket of Redis's key-space hash
// tables (16,384 of them past 8,192 keys) as the bench module's 100,000
// keys have (131,072), so the tables weigh the same per key.
const memoryKeys = 12_500

// A tracked key costs what the package doc says: with the default prefix,
// a user key of up to 14 bytes ("ip:203.0.113.9"), a window of an hour
// (1h) and the default policy name, the growth of INFO used_memory, which
// counts everything (the key's entry, its expiry entry, its name, its
// value and the hash tables), is at most 120 bytes per key for the fixed
// window and the sliding counter: their values are small integers, whose
// objects Redis shares. MEMORY USAGE, which counts the value's object
// whether shared or not, is 72 bytes for them and 104 for a sliding log
// holding one request.
func TestMemoryPerKey(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: testredis.Server(t).Addr, PoolSize: 8})
	t.Cleanup(func() { _ = c.Close() })
	ctx := context.Background()
	for _, tt := range []struct {
		alg   core.Algorithm
		usage int64   // MEMORY USAGE of one key, at most
		info  float64 // INFO used_memory growth per key, at most
	}{
		{core.FixedWindow, 72, 120},
		{core.SlidingWindow, 72, 120},
		{core.SlidingLog, 104, 170},
	} {
		t.Run(tt.alg.String(), func(t *testing.T) {
			require.NoError(t, c.FlushAll(ctx).Err())
			s, err := redisstore.New(c)
			require.NoError(t, err)
			ps := policies(t, core.PerHour(10).Using(tt.alg))
			take := func(key string) error {
				r, err := s.Take(ctx, key, ps, 1, time.Now())
				if err == nil && !r.States[0].Allowed {
					err = fmt.Errorf("%s: denied", key)
				}
				return err
			}
			// Connections and the script in place before the first reading.
			var wg sync.WaitGroup
			errs := make(chan error, 8)
			for g := range 8 {
				wg.Add(1)
				go func() { defer wg.Done(); errs <- take("warmup:" + strconv.Itoa(g)) }()
			}
			wg.Wait()
			for range 8 {
				require.NoError(t, <-errs)
			}
			before := usedMemory(t, c)

			for g := range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := g; i < memoryKeys; i += 8 {
						if err := take(fmt.Sprintf("ip:10.%d.%d.%d", i>>16, i>>8&255, i&255)); err != nil {
							errs <- err
							return
						}
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				require.NoError(t, err)
			}
			after := usedMemory(t, c)
			require.EqualValues(t, memoryKeys+8, c.DBSize(ctx).Val(), "one Redis key per tracked key")

			require.NoError(t, take("ip:203.0.113.9"))
			keys, err := c.Keys(ctx, "*203.0.113.9*").Result()
			require.NoError(t, err)
			require.Len(t, keys, 1)
			usage, err := c.MemoryUsage(ctx, keys[0]).Result()
			require.NoError(t, err)
			perKey := float64(after-before) / memoryKeys
			t.Logf("%s: MEMORY USAGE %d bytes, INFO used_memory %.1f bytes per key over %d keys",
				keys[0], usage, perKey, memoryKeys)
			assert.LessOrEqual(t, usage, tt.usage, "MEMORY USAGE of %s", keys[0])
			assert.LessOrEqual(t, perKey, tt.info, "INFO used_memory growth per key")
		})
	}
}

// usedMemory reads used_memory from INFO memory.
func usedMemory(t *testing.T, c *redis.Client) int64 {
	t.Helper()
	info, err := c.Info(context.Background(), "memory").Result()
	require.NoError(t, err)
	for _, line := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, "used_memory:"); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			require.NoError(t, err)
			return n
		}
	}
	t.Fatal("INFO memory has no used_memory")
	return 0
}
