package redisstore

import (
	"context"
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

// holdReload holds a pipeline that loads the scripts first (a batch sent
// again after NOSCRIPT, see pipelineTo) until release is closed, and
// closes reloading when it does.
type holdReload struct {
	reloading, release chan struct{}
	once               sync.Once
}

func (h *holdReload) DialHook(next redis.DialHook) redis.DialHook          { return next }
func (h *holdReload) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }

func (h *holdReload) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if len(cmds) > 0 && cmds[0].Name() == "script" {
			h.once.Do(func() { close(h.reloading) })
			<-h.release
		}
		return next(ctx, cmds)
	}
}

// A pipelined batch some of whose calls meet NOSCRIPT (Redis lost one
// script, not the other) answers the calls it decided at once: they do
// not wait for the round trip that sends the others again with the
// scripts loaded, an attempt of other calls, which may take up to the
// client's read timeout and end past their deadlines. Before, a decided
// call was answered only after that round trip.
func TestPipelinedBatchAnswersBeforeScriptReload(t *testing.T) {
	srv := testredis.Server(t)
	admin := srv.Client(t)
	ctx := context.Background()
	c := redis.NewClient(&redis.Options{Addr: srv.Addr})
	t.Cleanup(func() { _ = c.Close() })
	hook := &holdReload{reloading: make(chan struct{}), release: make(chan struct{})}
	t.Cleanup(func() {
		select {
		case <-hook.release:
		default:
			close(hook.release)
		}
	})
	c.AddHook(hook)
	s, err := New(c, WithPrefix(testredis.Prefix(t)), WithClientTime())
	require.NoError(t, err)
	s.batch.slotted.Store(true) // batches are pipelines of script calls
	one, err := policytest.Validate([]core.Policy{core.PerMinute(10)})
	require.NoError(t, err)
	two, err := policytest.Validate([]core.Policy{core.PerMinute(10).Named("a"), core.PerMinute(10).Named("b")})
	require.NoError(t, err)
	// Redis knows the single-policy script only.
	require.NoError(t, admin.ScriptFlush(ctx).Err())
	require.NoError(t, admin.ScriptLoad(ctx, oneScript.src.(string)).Err())

	s.batch.mu.Lock()
	s.batch.inFlight = maxInFlight
	s.batch.mu.Unlock()
	calls := []struct {
		key string
		ps  []core.Policy
	}{{"decided", one}, {"lost", two}}
	var answers []chan error
	for i, call := range calls {
		ch := make(chan error, 1)
		go func() {
			_, err := s.Take(ctx, call.key, call.ps, 1, time.Now())
			ch <- err
		}()
		require.Eventually(t, func() bool {
			s.batch.mu.Lock()
			defer s.batch.mu.Unlock()
			return len(s.batch.queue) == i+1
		}, 5*time.Second, time.Millisecond)
		answers = append(answers, ch)
	}
	s.finished(&s.batch, true) // the batch is sent: "lost" meets NOSCRIPT

	closedWithin(t, hook.reloading, 10*time.Second, "the NOSCRIPT call was sent again with the scripts")
	select {
	case err := <-answers[0]:
		assert.NoError(t, err, "the decided call")
	case <-time.After(5 * time.Second):
		t.Error("the decided call waited for the other call's round trip with the scripts loaded")
	}
	close(hook.release)
	require.NoError(t, <-answers[1], "the call sent again is decided")
	s.finished(&s.batch, true)
}
