package redisstore_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/redisstore"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// clusterPanic panics, while it is armed, in every CLUSTER command a
// cluster client sends through its own hooks (CLUSTER SHARDS, which the
// store reads on goroutines of its own to learn which slots no master
// serves), as a faulty hook of the user's would, and counts its panics.
type clusterPanic struct {
	armed  atomic.Bool
	panics atomic.Int32
}

func (h *clusterPanic) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *clusterPanic) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if h.armed.Load() && cmd.Name() == "cluster" {
			h.panics.Add(1)
			panic("a hook that fails on CLUSTER")
		}
		return next(ctx, cmd)
	}
}

func (h *clusterPanic) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// The client panics while the store reads which slots no master serves,
// on the goroutine of the first read (once the client has its slot map)
// and on that of a later one (a call answered that its slot is not
// served). The process goes on; the calls, whose answers do not depend on
// that read, are decided, or fail with Redis's answer, not with the
// panic; and once the client stops panicking the store reads the slots
// again at the next such answer, and names their keys' domain.
func TestPanicWhileReadingSlots(t *testing.T) {
	cl, admins := partialCluster(t)
	const first, last = 2 * (16384 / 3), 16383 // the third master's slots
	delSlots(t, admins, first, last)
	client := redis.NewUniversalClient(redisstore.ClientOptions(cl.Addrs()...))
	t.Cleanup(func() { _ = client.Close() })
	hook := &clusterPanic{}
	client.AddHook(hook)
	rs, err := redisstore.New(client, redisstore.WithPrefix(testredis.Prefix(t)))
	require.NoError(t, err)
	lost := keysOf(t, client, 3, first, last, true)
	served := keysOf(t, client, 4, first, last, false)
	require.NotEqual(t, client.ClusterKeySlot(context.Background(), lost[0]).Val(),
		client.ClusterKeySlot(context.Background(), lost[1]).Val())
	ctx := context.Background()
	ps := policies(t, core.Per(1_000_000, time.Hour))
	take := func(key string) error {
		c, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		defer cancel()
		_, err := rs.Take(c, key, ps, 1, time.Now())
		return err
	}

	hook.armed.Store(true)
	require.NoError(t, take(served[0]), "the first call, during which the first read panics")
	require.EqualValues(t, 1, hook.panics.Load(), "the first read ran and panicked")
	for _, k := range served {
		require.NoError(t, take(k))
		assert.Contains(t, []string{cl.Masters[0].Addr, cl.Masters[1].Addr}, rs.Domain(k), k)
	}

	err = take(lost[0])
	require.Error(t, err)
	assert.Contains(t, err.Error(), "CLUSTERDOWN", "Redis's answer")
	assert.NotErrorIs(t, err, redisstore.ErrClientPanicked, "the call itself did not panic")
	require.Eventually(t, func() bool { return hook.panics.Load() == 2 }, 2*time.Second, time.Millisecond,
		"the read at the answer that the slot is not served ran and panicked")
	assert.Equal(t, "no master", rs.Domain(lost[0]), "the slot the call met is noted, without the read")
	for _, k := range served {
		require.NoError(t, take(k), "the store goes on")
	}

	hook.armed.Store(false)
	require.Error(t, take(lost[1]))
	require.Eventually(t, func() bool {
		for _, k := range lost {
			if rs.Domain(k) != "no master" {
				return false
			}
		}
		return true
	}, 2*time.Second, time.Millisecond, "the next read, which does not panic, notes every slot without a master")
	assert.EqualValues(t, 2, hook.panics.Load())
	for _, k := range served {
		require.NoError(t, take(k))
	}
}
