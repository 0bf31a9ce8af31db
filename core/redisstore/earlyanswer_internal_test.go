package redisstore

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/policytest"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// tryAgainFor answers TRYAGAIN in place of the reply of the pipelined
// script call for keys holding key (as a slot in migration would), and
// holds that call's retry, sent alone, until release is closed.
type tryAgainFor struct {
	key     string
	release chan struct{}
}

func (h *tryAgainFor) mine(cmd redis.Cmder) bool {
	if n := cmd.Name(); n != "evalsha" && n != "eval" || len(cmd.Args()) < 4 {
		return false
	}
	k, ok := cmd.Args()[3].(*string)
	return ok && strings.Contains(*k, "{"+h.key+"}")
}

func (h *tryAgainFor) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *tryAgainFor) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if h.mine(cmd) {
			<-h.release
		}
		return next(ctx, cmd)
	}
}

func (h *tryAgainFor) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		for _, cmd := range cmds {
			if h.mine(cmd) {
				cmd.SetErr(scriptError("TRYAGAIN Multiple keys request during rehashing of slot"))
			}
		}
		return err
	}
}

// The decisions of a pipelined batch that need no retry are answered at
// once: they do not wait for the retries of another request of the batch,
// which runs within its own caller's time. Before, every caller of the
// batch waited for the last retry.
func TestPipelinedBatchAnswersBeforeRetries(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: testredis.Addr(t)})
	t.Cleanup(func() { _ = c.Close() })
	hook := &tryAgainFor{key: "slow", release: make(chan struct{})}
	c.AddHook(hook)
	s, err := New(c, WithPrefix(testredis.Prefix(t)), WithClientTime())
	require.NoError(t, err)
	s.batch.slotted.Store(true) // batches are pipelines of script calls
	ps, err := policytest.Validate([]core.Policy{core.PerMinute(10)})
	require.NoError(t, err)

	errs := queueCalls(t, s, ps, time.Now(), nil, "fast", "slow")
	s.finished(&s.batch, true)
	select {
	case err := <-errs[0]:
		require.NoError(t, err)
	case <-time.After(5 * time.Second):
		close(hook.release)
		t.Fatal("the decided call waited for the other's retry")
	}
	close(hook.release)
	require.NoError(t, <-errs[1], "the retried call is decided")
	s.finished(&s.batch, true)
}
