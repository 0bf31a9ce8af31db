package redisstore

import (
	"context"
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

// cutReply cuts the last byte off the replies of the batch script, or
// of the script calls sent alone, while it is armed: a reply the store
// cannot read, after Redis ran the script.
type cutReply struct {
	batch, alone atomic.Bool
}

func (h *cutReply) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *cutReply) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		c, ok := cmd.(interface {
			Val() string
			SetVal(string)
		})
		if n := cmd.Name(); !ok || err != nil || n != "evalsha" && n != "eval" {
			return err
		}
		if batch := cmd.Args()[1] == batchLua.sha || cmd.Args()[1] == batchLua.src; batch && h.batch.Load() || !batch && h.alone.Load() {
			v := c.Val()
			c.SetVal(v[:len(v)-1])
		}
		return err
	}
}

func (h *cutReply) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// A reply the store cannot read came after Redis ran the script: the
// error says that the call may have been charged, as the package doc says
// of a reply that is lost, and it is so: the call was charged. So for the
// calls of a batch whose reply is cut short, and for a call sent alone.
// The first call of the batch, whose part of the reply is whole, is
// decided. Before, the errors said only that the reply was unreadable.
func TestUnreadableReplySaysChargedMaybe(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: testredis.Addr(t)})
	t.Cleanup(func() { _ = c.Close() })
	hook := &cutReply{}
	c.AddHook(hook)
	s, err := New(c, WithPrefix(testredis.Prefix(t)), WithClientTime())
	require.NoError(t, err)
	ps, err := policytest.Validate([]core.Policy{core.PerMinute(10)})
	require.NoError(t, err)
	now := time.Now()
	ctx := context.Background()

	hook.batch.Store(true)
	errs := queueCalls(t, s, ps, now, nil, "first", "second")
	s.finished(&s.batch, true)
	require.NoError(t, <-errs[0], "the first call's part of the reply is whole")
	err = <-errs[1]
	s.finished(&s.batch, true)
	hook.batch.Store(false)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the call may have been charged")
	assert.False(t, isReply(err), "no answer from Redis, as a lost reply")

	hook.alone.Store(true)
	_, err = s.Take(ctx, "alone", ps, 1, now)
	hook.alone.Store(false)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the call may have been charged")

	for _, key := range []string{"first", "second", "alone"} {
		r, err := s.Peek(ctx, key, ps, 1, now)
		require.NoError(t, err)
		assert.Equal(t, int64(9), r.States[0].Remaining, "%s was charged", key)
	}
}
