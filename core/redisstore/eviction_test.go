package redisstore_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/redisstore"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// An evicting maxmemory-policy drops counts that are still counting: a
// full Redis under volatile-ttl evicts the store's keys before any other
// (every one has a TTL), and a client that had used its limit is
// admitted again within the window. docs/redis.md says so, and why
// noeviction is the policy for a limiter's Redis.
func TestEvictionForgetsCounts(t *testing.T) {
	srv := testredis.ServerWith(t, "--maxmemory-policy", "volatile-ttl")
	admin := srv.Client(t)
	ctx := context.Background()
	s, _ := optionsStore(t, srv.Addr, redisstore.WithClientTime()) // one instant: one window
	ps := policies(t, core.PerMinute(5).Using(core.FixedWindow))
	// Data of another user of the Redis, with no TTL.
	pipe := admin.Pipeline()
	for i := range 20000 {
		pipe.Set(ctx, fmt.Sprint("cache:", i), strings.Repeat("x", 100), 0)
	}
	_, err := pipe.Exec(ctx)
	require.NoError(t, err)
	now := time.Now()
	for range 5 {
		d, err := s.Take(ctx, "client", ps, 1, now)
		require.NoError(t, err)
		require.True(t, d.States[0].Allowed)
	}
	d, err := s.Take(ctx, "client", ps, 1, now)
	require.NoError(t, err)
	require.False(t, d.States[0].Allowed, "the limit holds while Redis has room")

	// Redis is 64 KiB over its maxmemory: it evicts every key that has a
	// TTL, the store's, and still refuses the call. Some memory later
	// (here: maxmemory raised again), the count is gone.
	require.NoError(t, admin.ConfigSet(ctx, "maxmemory", fmt.Sprint(usedMemory(t, admin)-64<<10)).Err())
	_, err = s.Take(ctx, "client", ps, 1, now)
	require.ErrorIs(t, err, redisstore.ErrOutOfMemory)
	require.NoError(t, admin.ConfigSet(ctx, "maxmemory", "0").Err())
	d, err = s.Take(ctx, "client", ps, 1, now)
	require.NoError(t, err)
	assert.True(t, d.States[0].Allowed, "the count was evicted: the client is admitted past its limit")
	n, err := admin.DBSize(ctx).Result()
	require.NoError(t, err)
	assert.GreaterOrEqual(t, n, int64(20000), "the keys without a TTL were kept")
}
