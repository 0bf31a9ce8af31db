package redisstore

import (
	"context"
	"os"
	"sync"
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

// refusedHook stops a pipelined batch when it comes back READONLY, so the
// test can act before the retries: it closes refused and waits until
// goOn. Then it closes retrying at the first script call sent alone, the
// first retry's attempt, and panics in every such call while panics is
// set.
type refusedHook struct {
	refused, resume, retrying chan struct{}
	onRefused, onResume       sync.Once
	onRetry                   sync.Once
	resumed                   atomic.Bool
	panics                    atomic.Bool
}

// newRefusedHook returns a refusedHook that t's cleanup lets go on, if
// the test did not.
func newRefusedHook(t *testing.T) *refusedHook {
	h := &refusedHook{refused: make(chan struct{}), resume: make(chan struct{}), retrying: make(chan struct{})}
	t.Cleanup(h.goOn)
	return h
}

func (h *refusedHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *refusedHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if n := cmd.Name(); h.resumed.Load() && (n == "evalsha" || n == "eval") {
			h.onRetry.Do(func() { close(h.retrying) })
			if h.panics.Load() {
				panic("hook failed")
			}
		}
		return next(ctx, cmd)
	}
}

func (h *refusedHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		for _, cmd := range cmds {
			if !h.resumed.Load() && redis.HasErrorPrefix(cmd.Err(), "READONLY") {
				h.onRefused.Do(func() { close(h.refused) })
				<-h.resume
				break
			}
		}
		return err
	}
}

// goOn lets the batch that h stopped go on to its retries.
func (h *refusedHook) goOn() {
	h.onResume.Do(func() {
		h.resumed.Store(true)
		close(h.resume)
	})
}

// timedErr is a call's error and the instant it came.
type timedErr struct {
	err error
	at  time.Time
}

// queueUnder is queueCalls with the callers' contexts given: every round
// trip of s is taken, and a Take of keys[i] under ctxs[i] queues, in
// order, for the batch that s.finished(&s.batch, true) sends.
func queueUnder(t *testing.T, s *Store, ps []core.Policy, ctxs []context.Context, keys []string) []chan timedErr {
	t.Helper()
	s.batch.mu.Lock()
	s.batch.inFlight = maxInFlight
	s.batch.mu.Unlock()
	var out []chan timedErr
	for i, key := range keys {
		ch := make(chan timedErr, 1)
		go func() {
			_, err := s.Take(ctxs[i], key, ps, 1, time.Now())
			ch <- timedErr{err, time.Now()}
		}()
		require.Eventually(t, func() bool {
			s.batch.mu.Lock()
			defer s.batch.mu.Unlock()
			return len(s.batch.queue) == i+1
		}, 5*time.Second, time.Millisecond)
		out = append(out, ch)
	}
	return out
}

// readOnlyStore returns a store over a client of srv with readTimeout,
// whose batches are pipelines of script calls, with hook added to the
// client; srv is made a replica, so the batches come back READONLY and
// their calls are retried one by one.
func readOnlyStore(t *testing.T, srv *testredis.Instance, readTimeout time.Duration, hook redis.Hook) (*Store, []core.Policy) {
	t.Helper()
	ctx := context.Background()
	admin := srv.Client(t)
	c := redis.NewClient(&redis.Options{Addr: srv.Addr, ReadTimeout: readTimeout, WriteTimeout: readTimeout, MaxRetries: -1})
	t.Cleanup(func() { _ = c.Close() })
	c.AddHook(hook)
	s, err := New(c, WithPrefix(testredis.Prefix(t)), WithClientTime())
	require.NoError(t, err)
	s.batch.slotted.Store(true)
	ps, err := policytest.Validate([]core.Policy{core.PerMinute(10)})
	require.NoError(t, err)
	require.NoError(t, admin.ReplicaOf(ctx, "127.0.0.1", "1").Err())
	t.Cleanup(func() { _ = admin.ReplicaOf(ctx, "NO", "ONE").Err() })
	return s, ps
}

// closedWithin fails the test unless ch is closed within d.
func closedWithin(t *testing.T, ch chan struct{}, d time.Duration, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(d):
		t.Fatalf("not within %v: %s", d, what)
	}
}

// The calls of a pipelined batch that Redis answered "not now" are
// retried each on its own, all at once: when Redis then hangs (here
// frozen as the retries begin), every caller waits for its own attempt,
// about one read timeout, whatever its place in the batch. Before, the
// attempts went one after another, each costing the client's read timeout
// before the next was sent: the k-th caller waited k read timeouts, with
// no deadline or a long one, and a caller cancelled with no deadline as
// long, though a call sent alone would have waited one. Here eight calls:
// four with no deadline, three with a long one, and the last with none,
// cancelled once the retries began; the read timeout is 400 ms, so the
// last call came after 2.8 s, where now each comes within 1.6 s.
func TestRetryAttemptsOnAHungRedisWaitForNoOtherCall(t *testing.T) {
	const readTimeout = 400 * time.Millisecond
	srv := testredis.Server(t)
	hook := newRefusedHook(t)
	s, ps := readOnlyStore(t, srv, readTimeout, hook)

	keys := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
	ctxs := make([]context.Context, len(keys))
	for i := range ctxs {
		ctxs[i] = context.Background()
	}
	for i := 4; i < 7; i++ {
		var cancel context.CancelFunc
		ctxs[i], cancel = context.WithTimeout(context.Background(), time.Minute)
		t.Cleanup(cancel)
	}
	last, cancelLast := context.WithCancel(context.Background())
	t.Cleanup(cancelLast)
	ctxs[7] = last
	answers := queueUnder(t, s, ps, ctxs, keys)
	s.finished(&s.batch, true) // the batch is sent, and comes back READONLY

	closedWithin(t, hook.refused, 10*time.Second, "the batch came back READONLY")
	thaw := srv.Freeze(t)
	frozen := time.Now()
	hook.goOn()
	closedWithin(t, hook.retrying, 10*time.Second, "the retries began")
	cancelLast()

	for i, ch := range answers {
		var a timedErr
		select {
		case a = <-ch:
		case <-time.After(30 * time.Second):
			t.Fatalf("%s: no answer in 30 s", keys[i])
		}
		require.Error(t, a.err, keys[i])
		if i == 7 {
			assert.ErrorIs(t, a.err, context.Canceled, "%s: its caller was cancelled", keys[i])
		} else {
			assert.ErrorIs(t, a.err, os.ErrDeadlineExceeded, "%s: its attempt timed out", keys[i])
		}
		assert.Less(t, a.at.Sub(frozen), 4*readTimeout,
			"%s: answered within about one read timeout of Redis hanging, not after the attempts of the calls before it", keys[i])
	}
	thaw()
	s.finished(&s.batch, true)
}

// A client hook that panics in a retry's attempt, on the goroutine the
// store retries that call on, fails the call with ErrClientPanicked, not
// the process, and the store goes on.
func TestRetryAttemptPanicFailsTheCall(t *testing.T) {
	srv := testredis.Server(t)
	hook := newRefusedHook(t)
	s, ps := readOnlyStore(t, srv, 5*time.Second, hook)
	hook.panics.Store(true)

	keys := []string{"a", "b", "c"}
	ctxs := []context.Context{context.Background(), context.Background(), context.Background()}
	answers := queueUnder(t, s, ps, ctxs, keys)
	s.finished(&s.batch, true)
	closedWithin(t, hook.refused, 10*time.Second, "the batch came back READONLY")
	hook.goOn()
	for i, ch := range answers {
		a := <-ch
		require.ErrorIs(t, a.err, ErrClientPanicked, keys[i])
		assert.Contains(t, a.err.Error(), "hook failed", keys[i])
	}
	s.finished(&s.batch, true)

	hook.panics.Store(false)
	require.NoError(t, srv.Client(t).ReplicaOf(context.Background(), "NO", "ONE").Err())
	for _, k := range keys {
		_, err := s.Take(context.Background(), k, ps, 1, time.Now())
		assert.NoError(t, err, "%s: the store goes on", k)
	}
}
