package redisstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/redisstore"
	"github.com/ratewindow/ratewindow/internal/clocktest"
	"github.com/ratewindow/ratewindow/internal/policytest"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// base is an instant aligned to every window these tests use, far enough
// ahead of Redis's clock (in 2084) that the keys the tests write take the
// compact form whatever the date (see docs/redis.md, Keys and memory).
var base = time.UnixMilli(3_600_000_000_000)

func policies(t testing.TB, ps ...core.Policy) []core.Policy {
	t.Helper()
	out, err := policytest.Validate(ps)
	require.NoError(t, err)
	return out
}

func TestNewRejectsBadConfig(t *testing.T) {
	rdb := testredis.Standalone(t)
	tests := []struct {
		name   string
		opts   []redisstore.Option
		field  string
		client bool
	}{
		{name: "nil client", field: "client"},
		{name: "empty prefix", client: true, opts: []redisstore.Option{redisstore.WithPrefix("")}, field: "WithPrefix"},
		{name: "open brace", client: true, opts: []redisstore.Option{redisstore.WithPrefix("app{")}, field: "WithPrefix"},
		{name: "close brace", client: true, opts: []redisstore.Option{redisstore.WithPrefix("}app")}, field: "WithPrefix"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s *redisstore.Store
			var err error
			if tt.client {
				s, err = redisstore.New(rdb, tt.opts...)
			} else {
				s, err = redisstore.New(nil, tt.opts...)
			}
			require.ErrorIs(t, err, core.ErrInvalidConfig)
			assert.Contains(t, err.Error(), tt.field)
			assert.Nil(t, s)
		})
	}
}

func TestNewDefaults(t *testing.T) {
	s, err := redisstore.New(testredis.Standalone(t), nil)
	require.NoError(t, err)
	require.NotNil(t, s)
}

func TestBadCallIsAnError(t *testing.T) {
	s, err := redisstore.New(testredis.Standalone(t), redisstore.WithPrefix(testredis.Prefix(t)))
	require.NoError(t, err)
	ctx := context.Background()
	ps := policies(t, core.PerSecond(5))
	_, err = s.Take(ctx, "k", ps, 0, base)
	assert.ErrorIs(t, err, core.ErrInvalidCost)
	_, err = s.Peek(ctx, "k", nil, 1, base)
	assert.ErrorIs(t, err, core.ErrInvalidConfig)
	many := make([]core.Policy, core.MaxPolicies+1)
	_, err = s.Take(ctx, "k", many, 1, base)
	assert.ErrorIs(t, err, core.ErrInvalidConfig)
	assert.ErrorIs(t, s.Reset(ctx, "k", nil), core.ErrInvalidConfig)
}

// A limiter built on the store works end to end, the one-line switch from
// memory the package doc shows; on a fake clock, so with WithClientTime.
func TestWithLimiter(t *testing.T) {
	s, err := redisstore.New(testredis.Standalone(t), redisstore.WithPrefix(testredis.Prefix(t)), redisstore.WithClientTime())
	require.NoError(t, err)
	clock := clocktest.New(base)
	lim, err := core.NewLimiter(s, []core.Policy{core.PerSecond(2).Using(core.FixedWindow)}, core.WithClock(clock))
	require.NoError(t, err)
	ctx := context.Background()
	for i, want := range []bool{true, true, false} {
		d, err := lim.Allow(ctx, "user-1")
		require.NoError(t, err)
		assert.Equal(t, want, d.Allowed, "request %d", i)
	}
	clock.Advance(time.Second)
	d, err := lim.Allow(ctx, "user-1")
	require.NoError(t, err)
	assert.True(t, d.Allowed)
}
