package redisstore

import (
	"context"
	"os"
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
// each as its own script call.
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

	assert.Equal(t, int64(9), remaining(t, s, "long", ps, now), "the caller that stayed was charged")
	assert.Equal(t, int64(10), remaining(t, s, "short", ps, now), "the caller that left was not charged")
}

// holdFirstBatch holds the first batch of script calls (a call of the
// batch script, or a pipeline of script calls), after its reply came,
// until release is closed.
type holdFirstBatch struct {
	once    sync.Once
	release chan struct{}
}

func (h *holdFirstBatch) hold() {
	h.once.Do(func() {
		select {
		case <-h.release:
		case <-time.After(10 * time.Second):
		}
	})
}

func (h *holdFirstBatch) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *holdFirstBatch) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if cmd.Name() == "evalsha" && cmd.Args()[1] == batchLua.sha {
			h.hold()
		}
		return err
	}
}

func (h *holdFirstBatch) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		h.hold()
		return err
	}
}

// A batch that meets NOSCRIPT (the server lost its scripts) is sent again
// with the script (EVAL of the batch script, or a pipeline that loads the
// scripts first), without the requests whose callers left meanwhile:
// those are not charged, as they would not have been sent alone. Before,
// the batch script's EVAL still ran for every caller of the batch, within
// the batch's latest deadline.
func TestBatchNoscriptLeavesOutCallersThatLeft(t *testing.T) {
	for _, slotted := range []bool{false, true} {
		t.Run(map[bool]string{false: "script", true: "pipeline"}[slotted], func(t *testing.T) {
			testBatchNoscriptLeavesOutCallersThatLeft(t, slotted)
		})
	}
}

func testBatchNoscriptLeavesOutCallersThatLeft(t *testing.T, slotted bool) {
	srv := testredis.Server(t)
	ctx := context.Background()
	c := redis.NewClient(&redis.Options{Addr: srv.Addr})
	t.Cleanup(func() { _ = c.Close() })
	hold := &holdFirstBatch{release: make(chan struct{})}
	c.AddHook(hold)
	s, err := New(c, WithPrefix(testredis.Prefix(t)), WithClientTime())
	require.NoError(t, err)
	s.batch.slotted.Store(slotted)
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

	assert.Equal(t, int64(9), remaining(t, s, "long", ps, now), "the caller that stayed was charged")
	assert.Equal(t, int64(10), remaining(t, s, "short", ps, now), "the caller that left was not charged")
}

// A batch that Redis answers "not now" (READONLY) is retried for each of
// its callers within that caller's own time, as the call would be alone:
// a caller with no deadline gets its answer after the retry budget
// (os.ErrDeadlineExceeded), uncharged, while a caller with a deadline of
// 10 s is still retried, and decided once Redis is a master again. Before,
// the whole batch was retried for the budget of its caller with no
// deadline, and failed for both.
func TestBatchRetryBoundsEachCaller(t *testing.T) {
	srv := testredis.Server(t)
	admin := srv.Client(t)
	ctx := context.Background()
	c := redis.NewClient(&redis.Options{Addr: srv.Addr})
	t.Cleanup(func() { _ = c.Close() })
	s, err := New(c, WithPrefix(testredis.Prefix(t)), WithClientTime())
	require.NoError(t, err)
	ps, err := policytest.Validate([]core.Policy{core.PerMinute(10)})
	require.NoError(t, err)
	now := time.Now()
	require.NoError(t, admin.ReplicaOf(ctx, "127.0.0.1", "1").Err())
	t.Cleanup(func() { _ = admin.ReplicaOf(ctx, "NO", "ONE").Err() })

	errs := queueCalls(t, s, ps, now, map[string]time.Duration{"none": 0}, "none", "long")
	s.finished(&s.batch, true) // the batch is sent, and meets READONLY

	err = <-errs[0]
	require.ErrorIs(t, err, os.ErrDeadlineExceeded, "the caller with no deadline: its retry budget")
	// Redis's answer to the last attempt is kept. A replica refuses the
	// EVAL that would cache the batch script, so each attempt is EVALSHA
	// (NOSCRIPT) then EVAL (READONLY); the budget may end between the two,
	// and the answer kept is then NOSCRIPT.
	assert.Regexp(t, "READONLY|NOSCRIPT", err.Error(), "Redis's answer is kept")
	require.NoError(t, admin.ReplicaOf(ctx, "NO", "ONE").Err())
	require.NoError(t, <-errs[1], "the caller with a deadline is retried until Redis is a master again")
	s.finished(&s.batch, true)

	assert.Equal(t, int64(9), remaining(t, s, "long", ps, now), "the caller decided was charged")
	assert.Equal(t, int64(10), remaining(t, s, "none", ps, now), "the caller whose budget ended was not charged")
}

// remaining peeks at key's first policy in s and returns its units left.
func remaining(t *testing.T, s *Store, key string, ps []core.Policy, now time.Time) int64 {
	t.Helper()
	r, err := s.Peek(context.Background(), key, ps, 1, now)
	require.NoError(t, err)
	return r.States[0].Remaining
}

// queueShortAndLong takes every round trip of s, so that calls queue, and
// queues two: "short", whose caller waits 200 ms, then "long", 10 s. It
// returns their errors' channels; the test then ends a round trip
// (s.finished), which sends both in one batch.
func queueShortAndLong(t *testing.T, s *Store, ps []core.Policy, now time.Time) (short, long chan error) {
	t.Helper()
	errs := queueCalls(t, s, ps, now, map[string]time.Duration{"short": 200 * time.Millisecond}, "short", "long")
	return errs[0], errs[1]
}

// queueCalls takes every round trip of s, so that calls queue, and
// queues a Take of each key, in order, with a deadline of 10 s or the
// one waits gives it, or none if that is 0. It returns their errors'
// channels; the test then ends a round trip (s.finished), which sends
// them in one batch.
func queueCalls(t *testing.T, s *Store, ps []core.Policy, now time.Time, waits map[string]time.Duration, keys ...string) []chan error {
	t.Helper()
	s.batch.mu.Lock()
	s.batch.inFlight = maxInFlight
	s.batch.mu.Unlock()
	var errs []chan error
	for i, key := range keys {
		out := make(chan error, 1)
		go func() {
			ctx, cancel := context.Background(), context.CancelFunc(func() {})
			if d, ok := waits[key]; !ok {
				ctx, cancel = context.WithTimeout(ctx, 10*time.Second)
			} else if d > 0 {
				ctx, cancel = context.WithTimeout(ctx, d)
			}
			defer cancel()
			_, err := s.Take(ctx, key, ps, 1, now)
			out <- err
		}()
		require.Eventually(t, func() bool {
			s.batch.mu.Lock()
			defer s.batch.mu.Unlock()
			return len(s.batch.queue) == i+1
		}, 5*time.Second, time.Millisecond)
		errs = append(errs, out)
	}
	return errs
}
