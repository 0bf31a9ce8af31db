package redisstore_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/redisstore"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// crossSlots counts the commands Redis answered CROSSSLOT.
type crossSlots struct {
	mu sync.Mutex
	n  int
}

func (c *crossSlots) DialHook(next redis.DialHook) redis.DialHook { return next }

func (c *crossSlots) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if redis.HasErrorPrefix(err, "CROSSSLOT") {
			c.mu.Lock()
			c.n++
			c.mu.Unlock()
		}
		return err
	}
}

func (c *crossSlots) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

func (c *crossSlots) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// An endpoint that shows one address but enforces the slot rule of a
// Cluster (a proxy in front of every slot; here one cluster node that
// serves them all) is a working setup for a non-cluster client: Check
// passes, and under concurrent calls on keys of many slots every decision
// is exact, with no error. The first batch whose keys span slots is
// answered CROSSSLOT before it runs; its requests are decided again one
// slot per script call, and the store sends no such batch again (at most
// one per round trip that was in flight meets CROSSSLOT).
func TestSlotEnforcingEndpoint(t *testing.T) {
	addr := testredis.SingleNodeCluster(t).Addr
	clients := map[string]func() redis.UniversalClient{
		"NewClient": func() redis.UniversalClient { return redis.NewClient(&redis.Options{Addr: addr}) },
		"ClientOptions": func() redis.UniversalClient {
			return redis.NewUniversalClient(redisstore.ClientOptions(addr))
		},
	}
	for name, newClient := range clients {
		t.Run(name+"/check", func(t *testing.T) {
			c := newClient()
			defer c.Close()
			s, _ := store(t, c)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			require.NoError(t, s.Check(ctx))
		})
		t.Run(name+"/exact", func(t *testing.T) {
			c := newClient()
			defer c.Close()
			testSlotEnforcingExact(t, c)
		})
	}
}

// testSlotEnforcingExact is TestBatchExact's check on c, with two
// policies: per key exactly limit requests are admitted, their Remaining
// exactly limit-1 ... 0, the second policy charged with the first, and no
// call fails.
func testSlotEnforcingExact(t *testing.T, c redis.UniversalClient) {
	const (
		goroutines = 64
		perG       = 24
		keys       = 16
		limit      = 40
		second     = 60
	)
	ps := policies(t,
		core.PerMinute(limit).Named("a").Using(core.FixedWindow),
		core.PerMinute(second).Named("b").Using(core.SlidingLog))
	batches := &batchCounter{perCall: len(ps)}
	batches.watch(t, c)
	refused := &crossSlots{}
	c.AddHook(refused)
	s, _ := store(t, c)

	remaining, seconds := takeConcurrently(t, s, ps, goroutines, perG, keys)
	for k := range keys {
		assert.Equal(t, countdown(limit-1, 0), sorted(remaining[k]), "key %d: the admitted requests' Remaining", k)
		assert.Equal(t, countdown(second-1, second-limit), sorted(seconds[k]), "key %d: the second policy charged with the first", k)
	}
	assert.Positive(t, refused.count(), "a batch spanned slots")
	assert.LessOrEqual(t, refused.count(), 2, "after the first CROSSSLOT the store keeps batches to one slot")
	assert.Greater(t, batches.count(), refused.count(), "calls still go in batches after CROSSSLOT")
}
