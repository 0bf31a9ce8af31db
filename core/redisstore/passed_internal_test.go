package redisstore

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/policytest"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// A request whose deadline has passed, though its context's timer has not
// fired yet (its Err is still nil), counts as left wherever a batch
// leaves out the callers that left: when the batch is taken from the
// queue, and when a batch refused with CROSSSLOT is sent again request by
// request (sendSlotted). It is not sent, so not charged. Before, both
// tested ctx.Err() and sent it.
func TestBatchLeavesOutPassedDeadlines(t *testing.T) {
	s, err := New(testredis.Standalone(t), WithPrefix(testredis.Prefix(t)), WithClientTime())
	require.NoError(t, err)
	ps, err := policytest.Validate([]core.Policy{core.PerMinute(10)})
	require.NoError(t, err)
	now := time.Now()
	remaining := func(key string) int64 {
		r, err := s.Peek(context.Background(), key, ps, 1, now)
		require.NoError(t, err)
		return r.States[0].Remaining
	}

	t.Run("queue", func(t *testing.T) {
		// The timer of "gone" fires when the test cancels it, after the
		// batch went out.
		timer, fire := context.WithCancel(context.Background())
		defer fire()
		gone := passedDeadline{timer, time.Now().Add(-time.Millisecond)}
		s.batch.mu.Lock()
		s.batch.inFlight = maxInFlight
		s.batch.mu.Unlock()
		var errs []chan error
		for i, call := range []struct {
			key string
			ctx context.Context
		}{{"queue-gone", gone}, {"queue-stays", context.Background()}} {
			out := make(chan error, 1)
			errs = append(errs, out)
			go func() {
				_, err := s.Take(call.ctx, call.key, ps, 1, now)
				out <- err
			}()
			require.Eventually(t, func() bool {
				s.batch.mu.Lock()
				defer s.batch.mu.Unlock()
				return len(s.batch.queue) == i+1
			}, 5*time.Second, time.Millisecond)
		}
		s.finished(&s.batch, true)
		require.NoError(t, <-errs[1], "the caller that stays")
		fire()
		require.ErrorIs(t, <-errs[0], context.Canceled)
		s.finished(&s.batch, true)
		assert.Equal(t, int64(10), remaining("queue-gone"), "the request whose deadline passed was not sent")
		assert.Equal(t, int64(9), remaining("queue-stays"))
	})
	t.Run("sendSlotted", func(t *testing.T) {
		// The Peek loads the script: the pipeline does not meet NOSCRIPT,
		// which would leave out the request on its own.
		require.Equal(t, int64(10), remaining("slotted-gone"))
		gone, stays := s.newRequest("slotted-gone", ps, 1, micros(now), true), s.newRequest("slotted-stays", ps, 1, micros(now), true)
		gone.ctx = passedDeadline{context.Background(), time.Now().Add(-time.Millisecond)}
		stays.ctx = context.Background()
		for _, r := range []*request{gone, stays} {
			r.sc, r.n, r.done = oneScript, len(ps), make(chan struct{})
		}
		s.sendSlotted([]*request{gone, stays}, scriptError("CROSSSLOT Keys in request don't hash to the same slot"))
		assert.ErrorIs(t, gone.err, context.DeadlineExceeded)
		assert.NoError(t, stays.err)
		assert.Equal(t, int64(10), remaining("slotted-gone"), "the request whose deadline passed was not sent")
		assert.Equal(t, int64(9), remaining("slotted-stays"))
	})
}
