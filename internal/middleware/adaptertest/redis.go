package adaptertest

import (
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/redisstore"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// deadRedis is a Redis store pointed at a loopback port where nothing
// listens: every call fails (connection refused).
func deadRedis(t *testing.T) core.Store {
	c := redis.NewClient(&redis.Options{Addr: testredis.DeadAddr(t), DialTimeout: time.Second, MaxRetries: -1})
	t.Cleanup(func() { _ = c.Close() })
	return newRedisStore(t, c)
}

// liveRedis is a Redis store on the test server (skipped without one),
// under a prefix no other test uses.
func liveRedis(t *testing.T) core.Store { return newRedisStore(t, testredis.Standalone(t)) }

// liveCluster is liveRedis on the test cluster.
func liveCluster(t *testing.T) core.Store { return newRedisStore(t, testredis.Cluster(t)) }

// newRedisStore returns a Redis store on c that decides on the now the
// Limiter passes (WithClientTime): the suite runs on a fake clock and
// expects the memory store's answers.
func newRedisStore(t *testing.T, c redis.UniversalClient) core.Store {
	s, err := redisstore.New(c, redisstore.WithPrefix(testredis.Prefix(t)), redisstore.WithClientTime())
	require.NoError(t, err)
	return s
}
