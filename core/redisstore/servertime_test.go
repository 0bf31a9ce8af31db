package redisstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/redisstore"
	"github.com/ratewindow/ratewindow/internal/clocktest"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// defaultStore is a store on c with no option but a prefix of its own: it
// decides on Redis's clock.
func defaultStore(t *testing.T, c redis.UniversalClient) (*redisstore.Store, string) {
	t.Helper()
	prefix := testredis.Prefix(t)
	s, err := redisstore.New(c, redisstore.WithPrefix(prefix))
	require.NoError(t, err)
	return s, prefix
}

// By default a sliding log records a request at Redis's TIME, to the
// microsecond, rounded up to the millisecond: between Redis's clock
// before the call and after it, whatever the now passed in. Both scripts
// (one policy, several).
func TestServerTimeExact(t *testing.T) {
	c := testredis.Standalone(t)
	ctx := context.Background()
	log := core.PerHour(100).Named("log").Using(core.SlidingLog)
	for name, ps := range map[string][]core.Policy{
		"one":  policies(t, log),
		"many": policies(t, log, core.PerHour(100).Using(core.FixedWindow)),
	} {
		t.Run(name, func(t *testing.T) {
			s, prefix := defaultStore(t, c)
			for range 5 {
				before := c.Time(ctx).Val()
				_, err := s.Take(ctx, "u", ps, 1, time.Unix(0, 0))
				require.NoError(t, err)
				after := c.Time(ctx).Val()
				members, err := c.ZRangeWithScores(ctx, prefix+":{u}:l1h:e8i8Su", -1, -1).Result()
				require.NoError(t, err)
				require.Len(t, members, 1)
				at := int64(members[0].Score)
				assert.GreaterOrEqual(t, at, before.UnixMilli(), "recorded at Redis's TIME, not before")
				assert.LessOrEqual(t, at, after.Add(time.Millisecond-1).UnixMilli(), "recorded at Redis's TIME rounded up, not after")
				time.Sleep(3 * time.Millisecond)
			}
		})
	}
}

// A Limiter on a fake clock far from real time, over a store with no
// option, still decides on Redis's clock: moving its clock on by two
// windows, or back by decades, frees nothing. Only WithClientTime makes
// the store follow the Limiter's clock.
func TestFakeClockDecidesOnRedisTime(t *testing.T) {
	const limit = 3
	ctx := context.Background()
	c := testredis.Standalone(t)
	// Not in the last seconds of an hour on Redis's clock, so every call
	// falls in one fixed window.
	now, err := c.Time(ctx).Result()
	require.NoError(t, err)
	if left := now.Truncate(time.Hour).Add(time.Hour).Sub(now); left < 5*time.Second {
		time.Sleep(left + 10*time.Millisecond)
	}
	for _, alg := range []core.Algorithm{core.FixedWindow, core.SlidingWindow, core.SlidingLog} {
		t.Run(alg.String(), func(t *testing.T) {
			s, _ := defaultStore(t, c)
			clock := clocktest.New(time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC))
			l, err := core.NewLimiter(s, []core.Policy{core.PerHour(limit).Using(alg)}, core.WithClock(clock))
			require.NoError(t, err)
			for i := range limit {
				d, err := l.Allow(ctx, "user:1")
				require.NoError(t, err)
				require.True(t, d.Allowed, "request %d", i)
			}
			for _, step := range []time.Duration{0, 2 * time.Hour, 10 * time.Hour, -30 * 365 * 24 * time.Hour} {
				clock.Advance(step)
				d, err := l.Allow(ctx, "user:1")
				require.NoError(t, err)
				assert.False(t, d.Allowed, "the fake clock moved %v: Redis's has not", step)
				assert.Greater(t, d.RetryAfter, time.Duration(0))
				assert.LessOrEqual(t, d.RetryAfter, 2*time.Hour)
				p, err := l.Peek(ctx, "user:1", 1)
				require.NoError(t, err)
				assert.False(t, p.Allowed)
			}
		})
	}
}
