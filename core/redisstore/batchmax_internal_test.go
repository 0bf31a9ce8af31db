package redisstore

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/policytest"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// One more than a batch of the maximum size, queued in a known order,
// mixing Take and Peek, costs (one above a limit), one to four policies of
// every algorithm, on keys they share: the store sends a full batch, then
// the last one, and every result is the one the same calls have sent one
// at a time in that order.
func TestFullBatchDecidesAsAlone(t *testing.T) {
	ctx := context.Background()
	c := testredis.Standalone(t)
	hook := &batchSizes{}
	c.AddHook(hook)
	batched, err := New(c, WithPrefix(testredis.Prefix(t)+"b:"), WithClientTime())
	require.NoError(t, err)
	alone, err := New(c, WithPrefix(testredis.Prefix(t)+"a:"), WithClientTime())
	require.NoError(t, err)
	sets := [][]core.Policy{
		{core.PerMinute(5).Named("f").Using(core.FixedWindow)},
		{core.PerMinute(7).Named("s").Using(core.SlidingWindow), core.PerMinute(5).Named("f").Using(core.FixedWindow)},
		{core.PerMinute(6).Named("l").Using(core.SlidingLog), core.PerMinute(7).Named("s").Using(core.SlidingWindow),
			core.PerMinute(5).Named("f").Using(core.FixedWindow)},
		{core.PerSecond(3).Named("l1").Using(core.SlidingLog), core.PerMinute(6).Named("l").Using(core.SlidingLog),
			core.PerMinute(7).Named("s").Using(core.SlidingWindow), core.PerHour(9).Named("f2").Using(core.FixedWindow)},
	}
	for i, ps := range sets {
		sets[i], err = policytest.Validate(ps)
		require.NoError(t, err)
	}
	type call struct {
		key    string
		ps     []core.Policy
		cost   int64
		charge bool
	}
	const n = maxBatch + 1
	calls := make([]call, n)
	for i := range calls {
		calls[i] = call{fmt.Sprint("k", i%3), sets[i%len(sets)], int64(1 + i%3), i%4 != 3}
		if i == 10 {
			calls[i].cost = 6 // above the fixed window's limit of 5
		}
	}
	now := time.Now()
	do := func(s *Store, c call) (core.Result, error) {
		if c.charge {
			return s.Take(ctx, c.key, c.ps, c.cost, now)
		}
		return s.Peek(ctx, c.key, c.ps, c.cost, now)
	}

	// Every round trip is taken: the calls queue, one after another.
	batched.batch.mu.Lock()
	batched.batch.inFlight = maxInFlight
	batched.batch.mu.Unlock()
	type answer struct {
		r   core.Result
		err error
	}
	answers := make([]chan answer, n)
	for i, c := range calls {
		answers[i] = make(chan answer, 1)
		go func() {
			r, err := do(batched, c)
			answers[i] <- answer{r, err}
		}()
		require.Eventually(t, func() bool {
			batched.batch.mu.Lock()
			defer batched.batch.mu.Unlock()
			return len(batched.batch.queue) == i+1
		}, 5*time.Second, time.Millisecond)
	}
	batched.finished(&batched.batch, true) // the queue is sent
	for i, c := range calls {
		got := <-answers[i]
		want, err := do(alone, c)
		require.NoError(t, err)
		require.NoError(t, got.err, "call %d", i)
		assert.Equal(t, want, got.r, "call %d: %+v", i, c)
	}
	batched.finished(&batched.batch, true)
	assert.Equal(t, []int{maxBatch}, hook.sizes(), "one full batch script, then the last call alone")
}

// batchSizes records the number of requests of every batch script call
// that Redis ran.
type batchSizes struct {
	mu sync.Mutex
	n  []int
}

func (h *batchSizes) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *batchSizes) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		args := cmd.Args()
		// A batch script that ran (not one refused NOSCRIPT, then sent
		// again with its source).
		if err == nil && len(args) > 3 && (args[1] == batchLua.sha || args[1] == batchLua.src) {
			h.mu.Lock()
			h.n = append(h.n, len(args)-3-args[2].(int))
			h.mu.Unlock()
		}
		return err
	}
}

func (h *batchSizes) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

func (h *batchSizes) sizes() []int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]int(nil), h.n...)
}
