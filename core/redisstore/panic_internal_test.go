package redisstore

import (
	"context"
	"errors"
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

// armedPanic panics, while it is armed, in the script calls and DELs the
// client sends alone and in its pipelines of script calls: a faulty hook
// of the user's.
type armedPanic struct {
	armed atomic.Bool
	value any
}

func (h *armedPanic) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *armedPanic) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if n := cmd.Name(); h.armed.Load() && (n == "evalsha" || n == "eval" || n == "del") {
			panic(h.value)
		}
		return next(ctx, cmd)
	}
}

func (h *armedPanic) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if h.armed.Load() {
			panic(h.value)
		}
		return next(ctx, cmds)
	}
}

// A client hook that panics on a goroutine of the store (a batch's, or
// the one a call with a deadline waits on when the client does not honour
// deadlines) does not end the process: each call it held fails with an
// error that matches ErrClientPanicked (and the panic's value, if it is an
// error) and says the call may have been charged, and the store goes on
// deciding the next calls. Before, the panic ended the test binary.
func TestClientPanicFailsTheCalls(t *testing.T) {
	boom := errors.New("boom")
	for _, tt := range []struct {
		name string
		run  func(t *testing.T, s *Store, ps []core.Policy) []error
	}{
		{"batch script", func(t *testing.T, s *Store, ps []core.Policy) []error { return queueTwo(t, s, ps) }},
		{"batch pipeline", func(t *testing.T, s *Store, ps []core.Policy) []error {
			s.batch.slotted.Store(true)
			return queueTwo(t, s, ps)
		}},
		{"alone", func(t *testing.T, s *Store, ps []core.Policy) []error {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_, take := s.Take(ctx, "a", ps, 1, time.Now())
			return []error{take, s.Reset(ctx, "a", ps)}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := redis.NewClient(&redis.Options{Addr: testredis.Addr(t)}) // no ContextTimeoutEnabled
			t.Cleanup(func() { _ = c.Close() })
			hook := &armedPanic{value: boom}
			c.AddHook(hook)
			s, err := New(c, WithPrefix(testredis.Prefix(t)))
			require.NoError(t, err)
			ps, err := policytest.Validate([]core.Policy{core.PerMinute(10)})
			require.NoError(t, err)

			hook.armed.Store(true)
			for i, err := range tt.run(t, s, ps) {
				require.ErrorIs(t, err, ErrClientPanicked, "call %d", i)
				assert.ErrorIs(t, err, boom, "call %d: the panic's value", i)
				assert.Regexp(t, `^redisstore: (take|reset): the Redis client panicked \(the call may have been charged\): boom$`, err.Error())
			}
			hook.armed.Store(false)
			for i, err := range tt.run(t, s, ps) {
				assert.NoError(t, err, "call %d: the store goes on", i)
			}
		})
	}
}

// queueTwo takes every round trip of s, queues two calls, and ends a
// round trip, so that the two go in one batch; it returns their errors
// once the batch has given its round trip back.
func queueTwo(t *testing.T, s *Store, ps []core.Policy) []error {
	t.Helper()
	s.batch.mu.Lock()
	s.batch.inFlight = maxInFlight
	s.batch.mu.Unlock()
	out := make(chan error, 2)
	for i, key := range []string{"a", "b"} {
		go func() {
			_, err := s.Take(context.Background(), key, ps, 1, time.Now())
			out <- err
		}()
		require.Eventually(t, func() bool {
			s.batch.mu.Lock()
			defer s.batch.mu.Unlock()
			return len(s.batch.queue) == i+1
		}, 5*time.Second, time.Millisecond)
	}
	s.finished(&s.batch, true)
	errs := []error{<-out, <-out}
	s.finished(&s.batch, true)
	require.Eventually(t, func() bool {
		s.batch.mu.Lock()
		defer s.batch.mu.Unlock()
		return s.batch.inFlight == 0
	}, 5*time.Second, time.Millisecond, "the batcher gave its round trips back")
	return errs
}
