package redisstore

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// A batch on an endpoint that enforces slots (one cluster node serving
// every slot, through a plain client), with the store's own scripts.
func TestSlotEnforcingBatch(t *testing.T) {
	addr := testredis.SingleNodeCluster(t).Addr
	c := redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { _ = c.Close() })
	ctx := context.Background()
	ps := validate(t, core.PerMinute(10).Named("a").Using(core.FixedWindow), core.PerMinute(10).Named("b").Using(core.SlidingLog))
	now := micros(time.Now())
	newStore := func(t *testing.T) *Store {
		// Client time: the batch's calls are decided at one instant.
		s, err := New(c, WithPrefix(testredis.Prefix(t)), WithClientTime())
		require.NoError(t, err)
		return s
	}
	// req builds a request of the batch for key, as eval queues it.
	req := func(s *Store, ctx context.Context, key string) *request {
		r := s.newRequest(key, ps, 1, now, true)
		r.ctx, r.sc, r.n, r.state, r.done = ctx, manyScript, len(ps), sent, make(chan struct{})
		return r
	}
	exists := func(t *testing.T, r *request) int64 {
		t.Helper()
		n := int64(0)
		for _, k := range r.keys[:r.n] {
			e, err := c.Exists(ctx, k).Result()
			require.NoError(t, err)
			n += e
		}
		return n
	}
	require.NotEqual(t, keySlot(tag("a")), keySlot(tag("b")))

	t.Run("refused before it runs", func(t *testing.T) {
		s := newStore(t)
		batch := []*request{req(s, ctx, "a"), req(s, ctx, "b")}
		// The batch script's call, as sendScript makes it.
		args := []any{nil, nil, 2 * len(ps)}
		for _, r := range batch {
			args = append(args, r.args[3:3+r.n]...)
		}
		for _, r := range batch {
			args = append(args, r.args[3+r.n])
		}
		_, err := batchLua.run(ctx, c, args)
		require.ErrorContains(t, err, "CROSSSLOT")
		for _, r := range batch {
			assert.Zero(t, exists(t, r), "the refused batch wrote no key of %s", r.keys[0])
		}
	})

	t.Run("decided again, once", func(t *testing.T) {
		s := newStore(t)
		before := crossSlotAnswers(t, c)
		gone, cancel := context.WithCancel(ctx)
		cancel()
		left := req(s, gone, "left")
		batch := []*request{req(s, ctx, "a"), left, req(s, ctx, "b"), req(s, ctx, "a")}
		s.send(&s.batch, batch)
		assert.Equal(t, before+1, crossSlotAnswers(t, c))
		assert.True(t, s.batch.slotted.Load())
		assert.ErrorIs(t, left.err, context.Canceled)
		assert.Zero(t, exists(t, left), "a caller that left is not sent again")
		// "a" twice, in order, then "b": each decided once.
		for i, want := range []int64{9, 9, 8} {
			r := []*request{batch[0], batch[2], batch[3]}[i]
			require.NoError(t, r.err, r.keys[0])
			var res core.Result
			require.NoError(t, decode(&res, r.reply, len(ps)))
			assert.Equal(t, want, res.States[0].Remaining, "%s, fixed window", r.keys[0])
			assert.Equal(t, want, res.States[1].Remaining, "%s, sliding log", r.keys[0])
		}

		// The store remembers: its next batch spanning slots is sent
		// one slot per call at once.
		batch = []*request{req(s, ctx, "a"), req(s, ctx, "b")}
		s.send(&s.batch, batch)
		assert.Equal(t, before+1, crossSlotAnswers(t, c), "no second CROSSSLOT")
		for _, r := range batch {
			require.NoError(t, r.err)
		}
		var res core.Result
		require.NoError(t, decode(&res, batch[0].reply, len(ps)))
		assert.Equal(t, int64(7), res.States[0].Remaining)
	})
}

// crossSlotAnswers returns how many commands the server answered CROSSSLOT
// (INFO errorstats).
func crossSlotAnswers(t *testing.T, c *redis.Client) int {
	t.Helper()
	info, err := c.Info(context.Background(), "errorstats").Result()
	require.NoError(t, err)
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "errorstat_CROSSSLOT:count="); ok {
			n, err := strconv.Atoi(v)
			require.NoError(t, err)
			return n
		}
	}
	return 0
}
