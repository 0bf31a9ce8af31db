package redisstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core/redisstore"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// A Redis Cluster of one master with a replica is no endpoint with one
// address: a standalone client on its master works only until the replica
// takes over, after which every key answers MOVED and the client cannot
// follow. Check refuses it, as it refuses a standalone client on any other
// Cluster; a cluster client on the same node passes.
func TestCheckOneMasterWithReplicas(t *testing.T) {
	pc := testredis.StartCluster(t, 1, 1, 5*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	alone := redis.NewClient(&redis.Options{Addr: pc.Masters[0].Addr})
	defer alone.Close()
	s, err := redisstore.New(alone)
	require.NoError(t, err)
	require.ErrorIs(t, s.Check(ctx), redisstore.ErrMisconfigured)

	cluster := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{pc.Masters[0].Addr}})
	defer cluster.Close()
	s, err = redisstore.New(cluster)
	require.NoError(t, err)
	require.NoError(t, s.Check(ctx))
}
