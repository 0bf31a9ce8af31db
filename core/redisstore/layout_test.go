package redisstore_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

func b36(n int64) string { return strconv.FormatInt(n, 36) }

// The stored values are what the package doc says: base-36 integers, the
// window given by its index.
func TestStoredLayout(t *testing.T) {
	c := testredis.Standalone(t)
	s, prefix := store(t, c)
	ctx := context.Background()
	ps := policies(t,
		core.PerMinute(50).Named("fixed").Using(core.FixedWindow),
		core.PerMinute(50).Named("sliding"),
		core.PerMinute(50).Named("log").Using(core.SlidingLog),
	)
	now := base.Add(90 * time.Second) // minute index i+1, 30 s in
	i := base.UnixMilli() / 60000
	earlier := now.Add(-45 * time.Second) // minute i, still in the log's window
	_, err := s.Take(ctx, "u", ps, 2, earlier)
	require.NoError(t, err)
	_, err = s.Take(ctx, "u", ps, 3, now)
	require.NoError(t, err)
	_, err = s.Take(ctx, "u", ps, 1, now)
	require.NoError(t, err)

	k := prefix + ":{u}:"
	assert.Equal(t, b36(i+1)+" 4", c.Get(ctx, k+"f60000:fixed").Val())
	assert.Equal(t, b36(i+1)+" 2 4", c.Get(ctx, k+"s60000:sliding").Val())
	members, err := c.ZRangeWithScores(ctx, k+"l60000:log", 0, -1).Result()
	require.NoError(t, err)
	t0, t1 := earlier.UnixMilli(), now.UnixMilli()
	want := []redis.Z{
		{Score: float64(t0), Member: b36(t0) + ":1"},
		{Score: float64(t0), Member: b36(t0) + ":2"},
		{Score: float64(t1), Member: b36(t1) + ":3"},
		{Score: float64(t1), Member: b36(t1) + ":4"},
		{Score: float64(t1), Member: b36(t1) + ":5"},
		{Score: float64(t1), Member: b36(t1) + ":6"},
	}
	assert.Equal(t, want, members)
}

// A value the script cannot read counts as no state rather than an error.
func TestUnreadableStateStartsOver(t *testing.T) {
	c := testredis.Standalone(t)
	s, prefix := store(t, c)
	ctx := context.Background()
	ps := policies(t, core.PerMinute(5).Named("fixed").Using(core.FixedWindow), core.PerMinute(5).Named("sliding"))
	require.NoError(t, c.Set(ctx, prefix+":{u}:f60000:fixed", "not a state", time.Minute).Err())
	require.NoError(t, c.Set(ctx, prefix+":{u}:s60000:sliding", "-", time.Minute).Err())
	r, err := s.Take(ctx, "u", ps, 1, base)
	require.NoError(t, err)
	assert.Equal(t, core.PolicyState{Allowed: true, Remaining: 4, ResetAfter: time.Minute}, r.States[0])
	assert.True(t, r.States[1].Allowed)
	assert.EqualValues(t, 4, r.States[1].Remaining)
}
