package redisstore

import (
	"context"
	"os"
	"strings"
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

// attemptsByKey counts the script calls sent alone (not in a pipeline)
// for each hash tag: the retries of a pipelined batch's requests.
type attemptsByKey struct {
	mu sync.Mutex
	n  map[string]int
}

func (h *attemptsByKey) note(cmd redis.Cmder) {
	if n := cmd.Name(); n != "evalsha" && n != "eval" || len(cmd.Args()) < 4 {
		return
	}
	k, ok := cmd.Args()[3].(*string)
	if !ok {
		return
	}
	_, rest, _ := strings.Cut(*k, "{")
	t, _, _ := strings.Cut(rest, "}")
	h.mu.Lock()
	h.n[t]++
	h.mu.Unlock()
}

func (h *attemptsByKey) count(key string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.n[key]
}

func (h *attemptsByKey) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *attemptsByKey) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.note(cmd)
		return next(ctx, cmd)
	}
}

func (h *attemptsByKey) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// The requests of a pipelined batch (a Cluster master's, or an endpoint's
// that enforces slots) that Redis answers "not now" are retried together,
// each caller bounded by its own time, with no deadline by the retry
// budget from the batch's start: none waits for the retries of the
// requests before it. Before, they were retried one after another, each
// with a budget of its own, so the k-th caller with no deadline waited
// k budgets (with 64 in a batch, half a minute), and was not retried at
// all until the requests before it had given up.
func TestPipelinedRetriesRunTogether(t *testing.T) {
	srv := testredis.Server(t)
	admin := srv.Client(t)
	ctx := context.Background()
	c := redis.NewClient(&redis.Options{Addr: srv.Addr})
	t.Cleanup(func() { _ = c.Close() })
	attempts := &attemptsByKey{n: map[string]int{}}
	c.AddHook(attempts)
	s, err := New(c, WithPrefix(testredis.Prefix(t)), WithClientTime())
	require.NoError(t, err)
	s.batch.slotted.Store(true) // batches are pipelines of script calls
	ps, err := policytest.Validate([]core.Policy{core.PerMinute(10)})
	require.NoError(t, err)
	now := time.Now()

	// The server refuses scripts (READONLY) while it is a replica.
	require.NoError(t, admin.ReplicaOf(ctx, "127.0.0.1", "1").Err())
	t.Cleanup(func() { _ = admin.ReplicaOf(ctx, "NO", "ONE").Err() })

	keys := []string{"a", "b", "c", "d", "e"}
	none := map[string]time.Duration{}
	for _, k := range keys {
		none[k] = 0 // no deadline: the retry budget bounds each
	}
	errs := queueCalls(t, s, ps, now, none, keys...)
	s.finished(&s.batch, true) // the batch is sent, and meets READONLY

	err = <-errs[0]
	last := keys[len(keys)-1]
	assert.Positive(t, attempts.count(last),
		"when the first caller's budget ended, the last request had been retried too, not only sent in the pipeline")
	for i, ch := range append([]chan error{nil}, errs[1:]...) {
		if i > 0 {
			err = <-ch
		}
		require.Error(t, err, keys[i])
		assert.ErrorIs(t, err, os.ErrDeadlineExceeded, "%s: the retry budget ended the call", keys[i])
		assert.Contains(t, err.Error(), "READONLY", "%s: Redis's answer is kept", keys[i])
	}
	s.finished(&s.batch, true)

	require.NoError(t, admin.ReplicaOf(ctx, "NO", "ONE").Err())
	for _, k := range keys {
		r, err := s.Peek(ctx, k, ps, 1, now)
		require.NoError(t, err)
		assert.Equal(t, int64(10), r.States[0].Remaining, "%s: no call that met READONLY was charged", k)
	}
}
