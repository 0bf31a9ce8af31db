package redisstore

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/policytest"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// A caller whose context is cancelled while Redis does not answer (its
// process frozen) returns at once with context.Canceled, whether its call
// went alone or in a batch, on a client that honours deadlines
// (ContextTimeoutEnabled) but, as go-redis does, not cancellation. The
// others are decided once Redis answers again, each charged once; the
// cancelled calls had been sent, so Redis may still run them: each is
// charged at most once. Before, the cancelled call sent alone ran on its
// caller's goroutine and waited for the client's read timeout.
func TestCancelledCallerLeavesAFrozenRedis(t *testing.T) {
	srv := testredis.Server(t)
	opts := ClientOptions(srv.Addr)
	// Only the contexts can end a call before the test does.
	opts.ReadTimeout, opts.WriteTimeout, opts.PoolTimeout = time.Minute, time.Minute, time.Minute
	c := redis.NewUniversalClient(opts)
	t.Cleanup(func() { _ = c.Close() })
	s, err := New(c, WithPrefix(testredis.Prefix(t)))
	require.NoError(t, err)
	require.True(t, s.ctxAware)
	ps, err := policytest.Validate([]core.Policy{core.PerMinute(10)})
	require.NoError(t, err)
	b := &s.batch
	state := func() (inFlight, queued int) {
		b.mu.Lock()
		defer b.mu.Unlock()
		return b.inFlight, len(b.queue)
	}

	thaw := srv.Freeze(t)
	type call struct {
		cancel context.CancelFunc
		err    chan error
	}
	take := func(key string) call {
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		out := make(chan error, 1)
		go func() {
			_, err := s.Take(ctx, key, ps, 1, time.Now())
			out <- err
		}()
		return call{cancel, out}
	}
	returned := func(c call, what string) error {
		t.Helper()
		select {
		case err := <-c.err:
			return err
		case <-time.After(20 * time.Second): // the client's timeouts are a minute
			t.Fatalf("%s still waits for the frozen Redis", what)
			return nil
		}
	}
	// a and b go alone and take both round trips; c and d queue.
	a := take("a")
	require.Eventually(t, func() bool { n, _ := state(); return n == 1 }, 5*time.Second, time.Millisecond)
	bb := take("b")
	require.Eventually(t, func() bool { n, _ := state(); return n == 2 }, 5*time.Second, time.Millisecond)
	cc := take("c")
	require.Eventually(t, func() bool { _, q := state(); return q == 1 }, 5*time.Second, time.Millisecond)
	d := take("d")
	require.Eventually(t, func() bool { _, q := state(); return q == 2 }, 5*time.Second, time.Millisecond)

	a.cancel()
	require.ErrorIs(t, returned(a, "the cancelled call sent alone"), context.Canceled)
	// a's round trip is given to the queue: c and d go in one batch.
	require.Eventually(t, func() bool { _, q := state(); return q == 0 }, 5*time.Second, time.Millisecond)
	cc.cancel()
	require.ErrorIs(t, returned(cc, "the cancelled call sent in a batch"), context.Canceled)

	thaw()
	require.NoError(t, returned(bb, "b"))
	require.NoError(t, returned(d, "d"))
	ctx := context.Background()
	for key, want := range map[string][]int64{"a": {9, 10}, "b": {9}, "c": {9, 10}, "d": {9}} {
		r, err := s.Peek(ctx, key, ps, 1, time.Now())
		require.NoError(t, err)
		assert.Contains(t, want, r.States[0].Remaining, "the remaining count of %s", key)
		t.Logf("%s: %d remaining", key, r.States[0].Remaining)
	}
}
