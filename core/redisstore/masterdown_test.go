package redisstore_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/redisstore"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// A replica that lost its master and serves no stale data
// (replica-serve-stale-data no; replica-read-only no, so that the scripts'
// writes meet this answer and not READONLY) answers MASTERDOWN, as a
// demoted master may while it syncs with the new one. A call retries it
// and fails at its deadline (or after its budget, with none), uncharged,
// with an error that says so and keeps the answer, not as a setup
// mistake; Check, which reads the server's role, names the replica a
// setup mistake, as it does any replica.
func TestMasterDownIsRetried(t *testing.T) {
	srv := testredis.Server(t)
	ctx := context.Background()
	admin := srv.Client(t)
	host, port, _ := strings.Cut(testredis.DeadAddr(t), ":")
	require.NoError(t, admin.ConfigSet(ctx, "replica-serve-stale-data", "no").Err())
	require.NoError(t, admin.ConfigSet(ctx, "replica-read-only", "no").Err())
	require.NoError(t, admin.ReplicaOf(ctx, host, port).Err())
	client := redis.NewUniversalClient(redisstore.ClientOptions(srv.Addr))
	t.Cleanup(func() { _ = client.Close() })
	s, err := redisstore.New(client, redisstore.WithPrefix(testredis.Prefix(t)))
	require.NoError(t, err)
	ps := policies(t, core.PerMinute(10))

	c, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	_, err = s.Take(c, "k", ps, 1, time.Now())
	cancel()
	t.Logf("deadline 200ms: %v", err)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.True(t, redis.HasErrorPrefix(err, "MASTERDOWN"), "the answer is kept: %v", err)
	assert.NotErrorIs(t, err, redisstore.ErrMisconfigured)

	_, err = s.Take(ctx, "k", ps, 1, time.Now())
	t.Logf("no deadline: %v", err)
	require.ErrorIs(t, err, os.ErrDeadlineExceeded)
	assert.True(t, redis.HasErrorPrefix(err, "MASTERDOWN"), "the answer is kept: %v", err)

	c, cancel = context.WithTimeout(ctx, 2*time.Second)
	err = s.Check(c)
	cancel()
	t.Logf("Check: %v", err)
	require.ErrorIs(t, err, redisstore.ErrMisconfigured)
	assert.Contains(t, err.Error(), "replica")

	require.NoError(t, admin.ReplicaOf(ctx, "NO", "ONE").Err())
	r, err := s.Peek(ctx, "k", ps, 1, time.Now())
	require.NoError(t, err)
	assert.Equal(t, int64(10), r.States[0].Remaining, "no call that met MASTERDOWN was charged")
}
