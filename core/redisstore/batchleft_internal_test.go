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

// A batch that Redis answers "not now" (READONLY: the server is a replica
// for a moment) is retried within its latest deadline; a caller whose own
// deadline ends during those retries fails, and its decision is no longer
// sent: it is not charged when Redis later runs the batch for the others,
// as it would not have been sent alone. So too for a batch sent as a
// pipeline of the requests' own script calls (to an endpoint that
// enforces slots, as to a Cluster's master), whose requests are retried
// one by one.
func TestBatchRetryDropsCallersThatLeft(t *testing.T) {
	for _, slotted := range []bool{false, true} {
		t.Run(map[bool]string{false: "script", true: "pipeline"}[slotted], func(t *testing.T) {
			testBatchRetryDropsCallersThatLeft(t, slotted)
		})
	}
}

func testBatchRetryDropsCallersThatLeft(t *testing.T, slotted bool) {
	srv := testredis.Server(t)
	admin := srv.Client(t)
	ctx := context.Background()
	c := redis.NewClient(&redis.Options{Addr: srv.Addr})
	t.Cleanup(func() { _ = c.Close() })
	s, err := New(c, WithPrefix(testredis.Prefix(t)), WithClientTime())
	require.NoError(t, err)
	s.batch.slotted.Store(slotted)
	ps, err := policytest.Validate([]core.Policy{core.PerMinute(10)})
	require.NoError(t, err)
	now := time.Now()

	// The server refuses scripts (READONLY) until it is a master again.
	require.NoError(t, admin.ReplicaOf(ctx, "127.0.0.1", "1").Err())
	t.Cleanup(func() { _ = admin.ReplicaOf(ctx, "NO", "ONE").Err() })

	// Every round trip is taken: both calls queue, then go in one batch.
	short, long := queueShortAndLong(t, s, ps, now)
	s.finished(&s.batch, true) // one round trip ends: the batch is sent

	require.ErrorIs(t, <-short, context.DeadlineExceeded)
	require.NoError(t, admin.ReplicaOf(ctx, "NO", "ONE").Err())
	require.NoError(t, <-long, "the batch is decided once Redis is a master again")
	s.finished(&s.batch, true)

	r, err := s.Peek(ctx, "long", ps, 1, now)
	require.NoError(t, err)
	assert.Equal(t, int64(9), r.States[0].Remaining, "the caller that stayed was charged")
	r, err = s.Peek(ctx, "short", ps, 1, now)
	require.NoError(t, err)
	assert.Equal(t, int64(10), r.States[0].Remaining, "the caller that left was not charged")
}

// holdFirstPipeline holds the first pipeline of script calls, after its
// replies came, until release is closed.
type holdFirstPipeline struct {
	once    sync.Once
	release chan struct{}
}

func (h *holdFirstPipeline) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *holdFirstPipeline) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }

func (h *holdFirstPipeline) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		h.once.Do(func() {
			select {
			case <-h.release:
			case <-time.After(10 * time.Second):
			}
		})
		return err
	}
}

// A pipelined batch that meets NOSCRIPT (the server lost its scripts) is
// sent again with the scripts loaded first, without the requests whose
// callers left meanwhile: those are not charged, as they would not have
// been sent alone.
func TestBatchNoscriptLeavesOutCallersThatLeft(t *testing.T) {
	srv := testredis.Server(t)
	ctx := context.Background()
	c := redis.NewClient(&redis.Options{Addr: srv.Addr})
	t.Cleanup(func() { _ = c.Close() })
	hold := &holdFirstPipeline{release: make(chan struct{})}
	c.AddHook(hold)
	s, err := New(c, WithPrefix(testredis.Prefix(t)), WithClientTime())
	require.NoError(t, err)
	s.batch.slotted.Store(true) // batches are pipelines of script calls
	ps, err := policytest.Validate([]core.Policy{core.PerMinute(10)})
	require.NoError(t, err)
	now := time.Now()
	require.NoError(t, srv.Client(t).ScriptFlush(ctx).Err())

	short, long := queueShortAndLong(t, s, ps, now)
	s.finished(&s.batch, true) // the batch is sent, and meets NOSCRIPT

	require.ErrorIs(t, <-short, context.DeadlineExceeded)
	close(hold.release)
	require.NoError(t, <-long)
	s.finished(&s.batch, true)

	r, err := s.Peek(ctx, "long", ps, 1, now)
	require.NoError(t, err)
	assert.Equal(t, int64(9), r.States[0].Remaining, "the caller that stayed was charged")
	r, err = s.Peek(ctx, "short", ps, 1, now)
	require.NoError(t, err)
	assert.Equal(t, int64(10), r.States[0].Remaining, "the caller that left was not charged")
}

// queueShortAndLong takes every round trip of s, so that calls queue, and
// queues two: "short", whose caller waits 200 ms, then "long", 10 s. It
// returns their errors' channels; the test then ends a round trip
// (s.finished), which sends both in one batch.
func queueShortAndLong(t *testing.T, s *Store, ps []core.Policy, now time.Time) (short, long chan error) {
	t.Helper()
	s.batch.mu.Lock()
	s.batch.inFlight = maxInFlight
	s.batch.mu.Unlock()
	take := func(key string, d time.Duration) chan error {
		out := make(chan error, 1)
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), d)
			defer cancel()
			_, err := s.Take(ctx, key, ps, 1, now)
			out <- err
		}()
		return out
	}
	queued := func(n int) func() bool {
		return func() bool {
			s.batch.mu.Lock()
			defer s.batch.mu.Unlock()
			return len(s.batch.queue) == n
		}
	}
	short = take("short", 200*time.Millisecond)
	require.Eventually(t, queued(1), 5*time.Second, time.Millisecond)
	long = take("long", 10*time.Second)
	require.Eventually(t, queued(2), 5*time.Second, time.Millisecond)
	return short, long
}
