package bench

import (
	"context"
	"math"
	"sync"
	"testing"
	"time"

	httprateredis "github.com/go-chi/httprate-redis"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/bench/internal/redisenv"
)

// httprateRedisPeer is go-chi/httprate-redis: httprate's LimitCounter on
// Redis, one key per client key and window (INCRBY + EXPIRE in a MULTI to
// charge, MGET of the current and previous window to read).
func httprateRedisPeer() redisPeer {
	return redisPeer{
		name:      "httprate-redis",
		algorithm: "sliding window counter (httprate)",
		// httprate-redis reads the current and the previous window's keys
		// with one MGET; on a cluster they lie in different slots.
		standaloneOnly: true,
		new: func(rdb redis.UniversalClient, prefix string, limit int64, window time.Duration) (redisAllow, error) {
			return newHTTPRateRedis(rdb, prefix, limit, window, time.Now), nil
		},
		// The Redis key is a hash of the client key and the window start,
		// so the tracked keys are found by the library's prefix.
		usageMatch: "httprate:*",
	}
}

// newHTTPRateRedis drives the Redis LimitCounter the way
// httprate.RateLimiter.OnLimit drives any custom counter: under one
// process-wide mutex, read the current and previous window counts,
// estimate prev×(W−elapsed)/W + curr, round it, and increment when
// rate+1 ≤ limit. Windows are aligned to multiples of W (httprate does not
// offset them for custom counters). Response headers are left out. The
// in-memory fallback is disabled so that a Redis error is an error, not a
// silent switch to local counting. now is the clock (a fixed one in tests).
func newHTTPRateRedis(rdb redis.UniversalClient, prefix string, limit int64, window time.Duration, now func() time.Time) redisAllow {
	counter := httprateredis.NewCounter(&httprateredis.Config{
		Client:           rdb,
		PrefixKey:        prefix, // "" is the library's default, "httprate"
		WindowLength:     window,
		FallbackDisabled: true,
	})
	// As httprate.NewRateLimiter does: the counter learns the window (its
	// keys expire after 3 windows).
	counter.Config(int(limit), window)
	var mu sync.Mutex
	w := float64(window)
	return func(_ context.Context, key string) (bool, error) {
		t := now().UTC()
		curr := t.Truncate(window)
		prev := curr.Add(-window)

		mu.Lock()
		defer mu.Unlock()
		currCount, prevCount, err := counter.Get(key, curr, prev)
		if err != nil {
			return false, err
		}
		rate := int64(math.Round(float64(prevCount)*(w-float64(t.Sub(curr)))/w + float64(currCount)))
		if rate+1 > limit {
			return false, nil
		}
		if err := counter.IncrementBy(key, curr, 1); err != nil {
			return false, err
		}
		return true, nil
	}
}

// TestHTTPRateRedisFixedTime checks the adapter at fixed instants: within
// one window exactly the limit is admitted; halfway through the next window
// the previous 10 weigh 5, so 5 more are admitted; 48 s into the window
// after that, the previous 5 weigh 1, so 9 are admitted.
func TestHTTPRateRedisFixedTime(t *testing.T) {
	rdb := redisenv.Standalone(t, 0)
	ctx := context.Background()
	const limit, window = 10, time.Minute
	start := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

	tests := []struct {
		name string
		at   time.Duration // since start, the same for every call
		want int           // admitted out of 2×limit calls
	}{
		{"first window", 20 * time.Second, limit},
		{"halfway through the next", window + window/2, limit / 2},
		{"48 s into the third window", 2*window + 48*time.Second, limit - 1},
	}
	now := start
	allow := newHTTPRateRedis(rdb, redisenv.Prefix(t), limit, window, func() time.Time { return now })
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now = start.Add(tt.at)
			admitted := 0
			for range 2 * limit {
				ok, err := allow(ctx, "user:0000001")
				require.NoError(t, err)
				if ok {
					admitted++
				}
			}
			require.Equal(t, tt.want, admitted)
		})
	}

	// Another key has its own count.
	ok, err := allow(ctx, "user:0000002")
	require.NoError(t, err)
	require.True(t, ok)
}
