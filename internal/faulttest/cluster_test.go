package faulttest

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/redisstore"
	"github.com/ratewindow/ratewindow/core/resilient"
)

// startCluster starts three redis-server processes of the test's own and
// joins them into a cluster of three masters without replicas, each
// owning a third of the slots. Masters keep serving their slots when
// another one is lost (cluster-require-full-coverage no).
func startCluster(t *testing.T) []*proc {
	t.Helper()
	nodes := make([]*proc, 3)
	for i := range nodes {
		nodes[i] = startRedis(t, "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
			"--cluster-node-timeout", "1000", "--cluster-require-full-coverage", "no")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for i, n := range nodes {
		c := n.client(t)
		first, last := firstSlot(i), firstSlot(i+1)-1
		require.NoError(t, c.Do(ctx, "CLUSTER", "ADDSLOTSRANGE", first, last).Err())
		require.NoError(t, c.Do(ctx, "CLUSTER", "SET-CONFIG-EPOCH", i+1).Err())
	}
	first := nodes[0].client(t)
	for _, n := range nodes[1:] {
		require.NoError(t, first.ClusterMeet(ctx, "127.0.0.1", fmt.Sprint(n.port)).Err())
	}
	// With cluster-require-full-coverage no, cluster_state:ok does not
	// say that a node knows who serves every slot, and cluster_known_nodes
	// counts nodes still in handshake, whose slots it has not taken yet.
	// A node that never learned a master's slots before that master is
	// killed leaves them out of its CLUSTER SLOTS, and a client that loads
	// its slot map from it sends those slots to random nodes.
	for _, n := range nodes {
		c := n.client(t)
		require.Eventually(t, func() bool {
			info, err := c.ClusterInfo(ctx).Result()
			return err == nil && strings.Contains(info, "cluster_state:ok") && strings.Contains(info, "cluster_known_nodes:3") &&
				strings.Contains(info, "cluster_slots_assigned:16384")
		}, 15*time.Second, 50*time.Millisecond, "cluster on %s is ok", n.addr())
	}
	return nodes
}

// firstSlot is the first slot of master i (of 3); firstSlot(3) is one past
// the last slot.
func firstSlot(i int) int { return i * 16384 / 3 }

// TestClusterLosesAMaster stops one master of a three-master cluster:
// keys whose slots it owned fail (or, with the fallback, are decided
// locally), and keys on the other masters keep being limited exactly.
func TestClusterLosesAMaster(t *testing.T) {
	t.Parallel()
	nodes := startCluster(t)
	addrs := []string{nodes[0].addr(), nodes[1].addr(), nodes[2].addr()}
	rdb := redis.NewClusterClient(&redis.ClusterOptions{
		Addrs: addrs, ContextTimeoutEnabled: true, DialTimeout: time.Second, MaxRedirects: 2,
	})
	t.Cleanup(func() { _ = rdb.Close() })
	ctx := context.Background()

	// Sort keys by the master that owns them. Short keys are their own
	// hash tag in redisstore, so the key's slot is the user key's.
	byNode := make([][]string, 3)
	for i := 0; len(byNode[0]) < 6 || len(byNode[1]) < 6 || len(byNode[2]) < 6; i++ {
		key := fmt.Sprintf("user-%d", i)
		slot, err := rdb.ClusterKeySlot(ctx, key).Result()
		require.NoError(t, err)
		n := 0
		for int(slot) >= firstSlot(n+1) {
			n++
		}
		byNode[n] = append(byNode[n], key)
	}

	rs, err := redisstore.New(rdb, redisstore.WithClientTime()) // on frozenClock
	require.NoError(t, err)
	const limit = 4
	ps := []core.Policy{core.Per(limit, time.Hour).Using(core.FixedWindow)}
	plain, err := core.NewLimiter(rs, ps, core.WithClock(frozenClock()))
	require.NoError(t, err)
	var fallbacks atomic.Int64
	guarded, err := resilient.New(rs, resilient.WithFallback(2), resilient.WithFailureThreshold(1000),
		resilient.WithOnFallback(func(string, error) { fallbacks.Add(1) }))
	require.NoError(t, err)
	withFallback, err := core.NewLimiter(guarded, ps, core.WithClock(frozenClock()))
	require.NoError(t, err)

	// Warm up: every key used once, so the client knows the slot map.
	for _, keys := range byNode {
		for _, k := range keys {
			d, err := plain.Allow(ctx, k)
			require.NoError(t, err)
			require.True(t, d.Allowed)
		}
	}

	nodes[2].stop()
	watch := watchStalls()
	defer watch.stop()

	// A call to the stopped master is bounded by a short deadline, and
	// must fail within it. A call to a live master gets a deadline a busy
	// machine cannot exhaust: its decision is counted exactly.
	allowWithin := func(d time.Duration) func(*core.Limiter, string) (core.Decision, error) {
		return func(l *core.Limiter, key string) (core.Decision, error) {
			ctx, cancel := context.WithTimeout(ctx, d)
			defer cancel()
			return l.Allow(ctx, key)
		}
	}
	allowLost, allow := allowWithin(300*time.Millisecond), allowWithin(5*time.Second)
	for n, keys := range byNode {
		for _, k := range keys[:3] {
			if n == 2 {
				start := time.Now()
				_, err := allowLost(plain, k)
				assert.Error(t, err, "key %s lives on the stopped master", k)
				took := time.Since(start)
				assert.Less(t, took, answerBound+watch.stalled(start, start.Add(took)), "and fails within the timeout")

				d, err := allowLost(withFallback, k)
				require.NoError(t, err, "the fallback decides %s", k)
				assert.True(t, d.Allowed)
				continue
			}
			// Three more requests fit (one was spent warming up), then
			// the limit holds: exactly as before the loss.
			for i := range limit - 1 {
				d, err := allow(plain, k)
				require.NoError(t, err, "key %s on a live master", k)
				require.True(t, d.Allowed, "key %s request %d", k, i)
			}
			d, err := allow(plain, k)
			require.NoError(t, err)
			assert.False(t, d.Allowed, "key %s is limited exactly", k)
			assert.Equal(t, int64(0), d.Remaining)
		}
	}
	assert.Equal(t, int64(3), fallbacks.Load())
	assert.Equal(t, resilient.Closed, guarded.State(), "three failures stay under the threshold")
}
