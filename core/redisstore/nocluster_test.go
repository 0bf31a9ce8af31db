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
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// A cluster client on a server without cluster support, in a service
// that started while Redis could not be reached (or was busy, before
// Check asked HELLO): every call names the mistake, as Check does, rather
// than failing with Redis's "cluster support disabled" alone, which reads
// as an outage for as long as the service runs. Before, the calls' error
// did not wrap ErrMisconfigured.
func TestClusterClientOnStandaloneNamedByCalls(t *testing.T) {
	t.Parallel()
	srv := testredis.Server(t)
	client := redis.NewClusterClient(redisstore.ClientOptions(srv.Addr).Cluster())
	t.Cleanup(func() { _ = client.Close() })
	s, err := redisstore.New(client, redisstore.WithPrefix(testredis.Prefix(t)))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ps := policies(t, core.PerMinute(10))
	_, take := s.Take(ctx, "k", ps, 1, time.Now())
	_, peek := s.Peek(ctx, "k", ps, 1, time.Now())
	check := s.Check(ctx)
	for name, err := range map[string]error{"Take": take, "Peek": peek, "Check": check} {
		t.Logf("%s: %v", name, err)
		require.ErrorIs(t, err, redisstore.ErrMisconfigured, name)
		assert.Contains(t, err.Error(), "no cluster node", name)
		assert.Contains(t, err.Error(), "cluster support disabled", name, "Redis's answer kept")
	}
}
