package redisstore_test

import (
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/redisstore"
	"github.com/ratewindow/ratewindow/core/storetest"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

func conformance(t *testing.T, client redis.UniversalClient, opts ...redisstore.Option) {
	storetest.Run(t, func(t *testing.T) core.Store {
		s, err := redisstore.New(client, append(opts, redisstore.WithPrefix(testredis.Prefix(t)))...)
		require.NoError(t, err)
		return s
	})
}

func TestConformanceStandalone(t *testing.T) {
	conformance(t, testredis.Standalone(t))
}

func TestConformanceCluster(t *testing.T) {
	conformance(t, testredis.Cluster(t))
}
