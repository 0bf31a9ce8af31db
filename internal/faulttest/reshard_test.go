package faulttest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/redisstore"
	"github.com/ratewindow/ratewindow/internal/policytest"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// TestSlotMigrationUnderLoad moves the slot of a hot key from one master to
// another and back, key by key (CLUSTER SETSLOT IMPORTING/MIGRATING, then
// MIGRATE), while 8 workers charge it with two policies at once (two keys
// in the slot, so a call can meet ASK or TRYAGAIN half-way). No decision
// fails, and the counts stay exact: each policy's state holds exactly the
// charges that were acknowledged.
func TestSlotMigrationUnderLoad(t *testing.T) {
	t.Parallel()
	cl := testredis.StartCluster(t, 3, 0, 2*time.Second)
	client := redis.NewUniversalClient(redisstore.ClientOptions(cl.Addrs()...))
	t.Cleanup(func() { _ = client.Close() })
	s, err := redisstore.New(client, redisstore.WithClientTime()) // the calls and Peeks at one instant
	require.NoError(t, err)
	ctx := context.Background()
	require.NoError(t, s.Check(ctx))

	const limit = 1_000_000
	ps := []core.Policy{
		core.Per(limit, time.Hour).Named("fw").Using(core.FixedWindow),
		core.Per(limit, time.Hour).Named("log").Using(core.SlidingLog),
	}
	ps, err = policytest.Validate(ps)
	require.NoError(t, err)
	// The hot key and a few neighbours in the same slot: the hash tag is
	// the key, so "{hot}..." keys all live in slot(hot).
	hot := "hot"
	slot, err := client.ClusterKeySlot(ctx, hot).Result()
	require.NoError(t, err)
	var others []string
	for i := 0; len(others) < 3; i++ {
		k := fmt.Sprint("cold-", i)
		if sl, err := client.ClusterKeySlot(ctx, k).Result(); err == nil && sl != slot {
			others = append(others, k)
		}
	}
	keys := []string{hot, hot, hot, others[0], hot, others[1], hot, others[2]}
	now := time.Now()

	stalls := watchStalls()
	stalls.watchServers(cl.Addrs()...)
	defer stalls.stop()
	load := startStoreLoad(s, keys, ps, now, 8, time.Second)
	time.Sleep(300 * time.Millisecond)
	owner := masterOf(t, cl, int(slot))
	for round := range 4 {
		to := cl.Masters[(indexOf(cl, owner)+1)%len(cl.Masters)]
		migrateSlot(t, cl, int(slot), owner, to)
		t.Logf("round %d: slot %d moved from %s to %s", round, slot, owner.Addr, to.Addr)
		owner = to
		time.Sleep(200 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	load.stop()

	fs := load.failuresSince(time.Time{})
	logFailures(t, fs)
	t.Logf("%d decisions, %d failed", load.calls.Load(), len(fs))
	stalled := stallTimeouts(t, fs, stalls)
	assert.Equal(t, int64(len(fs)), sum(stalled), "no decision fails while the slot moves, but for a stall of this process or a server")

	for _, k := range append([]string{hot}, others...) {
		var err error
		var r core.Result
		require.NoError(t, soon(func() error { r, err = s.Peek(ctx, k, ps, 1, now); return err }))
		for i, st := range r.States[:len(ps)] {
			// A call that timed out in a stall may have been charged
			// or not: the count is exact to within those calls.
			charged := limit - st.Remaining
			assert.GreaterOrEqual(t, charged, load.allowed[k], "key %s policy %s: every acknowledged charge kept", k, ps[i].Name)
			assert.LessOrEqual(t, charged, load.allowed[k]+stalled[k], "key %s policy %s: nothing charged but the acknowledged calls (and %d timed out in a stall)", k, ps[i].Name, stalled[k])
		}
	}
}

// stallTimeouts counts per key the failures in fs that a stall of this
// process or of a server explains: timeouts of calls that would have ended
// within two read timeouts but for the stall. It logs each.
func stallTimeouts(t *testing.T, fs []failure, stalls *stallWatch) map[string]int64 {
	t.Helper()
	limit := 2 * redisstore.ClientOptions().ReadTimeout
	out := map[string]int64{}
	for _, f := range fs {
		var ne net.Error
		timeout := errors.Is(f.err, context.DeadlineExceeded) || errors.As(f.err, &ne) && ne.Timeout()
		stalled := stalls.stalled(f.sent, f.at)
		if timeout && stalled > 0 && f.at.Sub(f.sent)-stalled < limit {
			t.Logf("%s failed after %v, %v of which this process or a server stalled: %v",
				f.key, f.at.Sub(f.sent).Round(time.Millisecond), stalled.Round(time.Millisecond), f.err)
			out[f.key]++
		}
	}
	return out
}

// masterOf returns the master that owns slot, asking the first master.
func masterOf(t *testing.T, cl *testredis.PrivateCluster, slot int) *testredis.ClusterNode {
	t.Helper()
	ctx := context.Background()
	for _, m := range cl.Masters {
		nodes, err := m.Client(t).ClusterNodes(ctx).Result()
		require.NoError(t, err)
		for _, line := range strings.Split(nodes, "\n") {
			f := strings.Fields(line)
			if len(f) < 9 || !strings.Contains(f[2], "master") {
				continue
			}
			for _, r := range f[8:] {
				lo, hi, ok := strings.Cut(r, "-")
				if !ok {
					hi = lo
				}
				var a, b int
				if _, err := fmt.Sscan(lo, &a); err != nil {
					continue
				}
				if _, err := fmt.Sscan(hi, &b); err != nil {
					continue
				}
				if a <= slot && slot <= b {
					for _, mm := range cl.Masters {
						if mm.ID == f[0] {
							return mm
						}
					}
				}
			}
		}
		break
	}
	t.Fatalf("no master owns slot %d", slot)
	return nil
}

func indexOf(cl *testredis.PrivateCluster, n *testredis.ClusterNode) int {
	for i, m := range cl.Masters {
		if m == n {
			return i
		}
	}
	return -1
}

// migrateSlot moves slot from one master to another the way redis-cli
// --cluster reshard does: IMPORTING on the target, MIGRATING on the
// source, MIGRATE of the keys in small batches, then SETSLOT NODE on every
// master. Batches of one key, with 100 ms between (a reshard of a slot
// with many keys takes that long and more), keep the slot split between
// both nodes for a while.
func migrateSlot(t *testing.T, cl *testredis.PrivateCluster, slot int, from, to *testredis.ClusterNode) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	src, dst := from.Client(t), to.Client(t)
	require.NoError(t, dst.Do(ctx, "CLUSTER", "SETSLOT", slot, "IMPORTING", from.ID).Err())
	require.NoError(t, src.Do(ctx, "CLUSTER", "SETSLOT", slot, "MIGRATING", to.ID).Err())
	host, port, _ := strings.Cut(to.Addr, ":")
	for {
		keys, err := src.ClusterGetKeysInSlot(ctx, slot, 1).Result()
		require.NoError(t, err)
		if len(keys) == 0 {
			break
		}
		args := []any{"MIGRATE", host, port, "", 0, 5000, "KEYS"}
		for _, k := range keys {
			args = append(args, k)
		}
		err = src.Do(ctx, args...).Err()
		require.True(t, err == nil || err.Error() == "NOKEY", "MIGRATE: %v", err)
		time.Sleep(100 * time.Millisecond)
	}
	require.NoError(t, dst.Do(ctx, "CLUSTER", "SETSLOT", slot, "NODE", to.ID).Err())
	require.NoError(t, src.Do(ctx, "CLUSTER", "SETSLOT", slot, "NODE", to.ID).Err())
	for _, m := range cl.Masters {
		if m != from && m != to {
			require.NoError(t, m.Client(t).Do(ctx, "CLUSTER", "SETSLOT", slot, "NODE", to.ID).Err())
		}
	}
}
