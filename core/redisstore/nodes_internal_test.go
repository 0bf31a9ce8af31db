package redisstore

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/policytest"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// A Cluster store keeps a batcher per master, and drops those of nodes
// that are masters no more: here a master's slots move, twice, to a new
// node (a new replica promoted with CLUSTER FAILOVER) while calls for
// every master run. The store ends with a batcher per master, not one per
// master it ever met, and no call was lost or charged twice meanwhile.
func TestNodeBatchersFollowMasters(t *testing.T) {
	cl := testredis.StartCluster(t, 3, 0, 5*time.Second)
	client := redis.NewUniversalClient(ClientOptions(cl.Addrs()...)).(*redis.ClusterClient)
	t.Cleanup(func() { _ = client.Close() })
	// Every call and Peek at one instant: the counts are compared exactly,
	// and no window may end between them (an hour's, on the clock, can).
	s, err := New(client, WithPrefix(testredis.Prefix(t)), WithClientTime())
	require.NoError(t, err)
	ctx := context.Background()
	require.NoError(t, s.Check(ctx))
	ps, err := policytest.Validate([]core.Policy{core.PerHour(1_000_000)})
	require.NoError(t, err)
	keys := make([][]string, 3) // keys[i]: keys of cl.Masters[i]'s slots
	for i := 0; len(keys[0]) < 4 || len(keys[1]) < 4 || len(keys[2]) < 4; i++ {
		k := fmt.Sprint("key", i)
		m := min(keySlot(k)/(16384/3), 2)
		keys[m] = append(keys[m], k)
	}
	all := append(append(append([]string(nil), keys[0][:4]...), keys[1][:4]...), keys[2][:4]...)

	at := time.Now()
	start := time.Now()
	var stop atomic.Bool
	var wg sync.WaitGroup
	var decided, failed [12]atomic.Int64
	for g := range 12 {
		wg.Go(func() {
			for !stop.Load() {
				c, cancel := context.WithTimeout(ctx, time.Second)
				_, err := s.Take(c, all[g%12], ps, 1, at)
				cancel()
				if err != nil {
					failed[g%12].Add(1)
				} else {
					decided[g%12].Add(1)
				}
			}
		})
	}
	defer func() { stop.Store(true); wg.Wait() }()

	args := []string{"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "5000",
		"--cluster-allow-replica-migration", "no"} // each replica stays where it is put
	host, port, _ := strings.Cut(cl.Masters[1].Addr, ":")
	stable := cl.Masters[1].Client(t)
	for _, m := range cl.Masters {
		require.NoError(t, m.Client(t).ConfigSet(ctx, "cluster-allow-replica-migration", "no").Err())
	}
	wait := func(what string, cond func() bool) {
		t.Helper()
		if !assert.Eventually(t, cond, 10*time.Second, 20*time.Millisecond, what) {
			nodes, _ := cl.Masters[1].Client(t).ClusterNodes(ctx).Result()
			t.Fatalf("%s\n%s", what, nodes)
		}
	}
	for round := range 2 {
		n := testredis.ServerWith(t, args...)
		admin := n.Client(t)
		id, err := admin.Do(ctx, "CLUSTER", "MYID").Text()
		require.NoError(t, err)
		require.NoError(t, admin.ClusterMeet(ctx, host, port).Err())
		var master, masterID string // the master of slot 0, as a stable master sees it
		wait("the master of slot 0", func() bool {
			nodes, err := stable.ClusterNodes(ctx).Result()
			if err != nil {
				return false
			}
			for _, line := range strings.Split(nodes, "\n") {
				if f := strings.Fields(line); len(f) > 8 && strings.Contains(f[2], "master") && strings.HasPrefix(f[8], "0-") {
					master, _, _ = strings.Cut(f[1], "@")
					masterID = f[0]
					return true
				}
			}
			return false
		})
		wait("the new node to replicate the master", func() bool {
			return admin.ClusterReplicate(ctx, masterID).Err() == nil
		})
		var info string
		wait("the replica in sync", func() bool {
			info, err = admin.Info(ctx, "replication").Result()
			return err == nil && strings.Contains(info, "master_link_status:up")
		})
		_ = info
		require.NoError(t, admin.Do(ctx, "CLUSTER", "FAILOVER").Err())
		wait("the replica promoted", func() bool {
			info, err := admin.Info(ctx, "replication").Result()
			return err == nil && strings.Contains(info, "role:master")
		})
		client.ReloadState(ctx)
		wait("the store to send to the new master", func() bool {
			return s.Domain(keys[0][0]) == n.Addr && decided[0].Load() > 0
		})
		t.Logf("round %d: %s (%s) took over from %s at %v", round, n.Addr, id, master, time.Since(start).Round(time.Millisecond))
	}
	stop.Store(true)
	wg.Wait()

	var listed atomic.Int32
	require.NoError(t, client.ForEachMaster(ctx, func(context.Context, *redis.Client) error { listed.Add(1); return nil }))
	masters := int(listed.Load())
	require.Equal(t, 3, masters)
	batchers := func() int {
		n := 0
		s.nodes.Range(func(any, any) bool { n++; return true })
		return n
	}
	if !assert.Eventually(t, func() bool { return batchers() <= masters }, 2*time.Second, 10*time.Millisecond) {
		t.Fatalf("%d batchers for %d masters", batchers(), masters)
	}
	for i, k := range all {
		r, err := s.Peek(ctx, k, ps, 1, at)
		require.NoError(t, err)
		charged := ps[0].Limit - r.States[0].Remaining
		assert.GreaterOrEqual(t, charged, decided[i].Load(), "key %s: no decided call lost", k)
		assert.LessOrEqual(t, charged, decided[i].Load()+failed[i].Load(), "key %s: no call charged twice", k)
	}
	var d, f int64
	for i := range all {
		d, f = d+decided[i].Load(), f+failed[i].Load()
	}
	t.Logf("%d calls decided, %d failed", d, f)
}
