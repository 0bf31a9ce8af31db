package redisstore

import (
	"bytes"
	"context"
	"net"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/policytest"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// A call sent alone whose context is cancelled while Redis does not
// answer (its process frozen) waits for its reply, on a client that
// honours deadlines (ContextTimeoutEnabled) but, as go-redis does, not
// cancellation, and is decided and charged once when Redis answers: the
// middleware asks a cancelled request again, detached, and a call that
// returned at the cancellation would be charged twice (a half-closing
// client). So is a call cancelled while it waits for a batch already
// sent; before, it returned at once with context.Canceled, and Redis ran
// it all the same. (A call cancelled while still queued leaves,
// uncharged.)
func TestCancelledCallSentAloneIsDecided(t *testing.T) {
	srv := testredis.Server(t)
	// The calls must be on the wire before they are cancelled: one
	// cancelled while it still waits for a connection (or its handshake,
	// which go-redis makes on a connection's first use) returns uncharged,
	// as it should. So three connections are made and used before Redis
	// freezes, and the test counts the script calls written to them.
	var written atomic.Int64
	c := redis.NewUniversalClient(countingOptions(srv.Addr, &written))
	t.Cleanup(func() { _ = c.Close() })
	s, err := New(c, WithPrefix(testredis.Prefix(t)))
	require.NoError(t, err)
	warm := func() {
		t.Helper()
		var held []*redis.Conn
		for range 3 {
			cn := c.(*redis.Client).Conn()
			require.NoError(t, cn.Ping(context.Background()).Err())
			held = append(held, cn)
		}
		for _, cn := range held {
			require.NoError(t, cn.Close())
		}
	}
	warm()
	onWire := func(n int64) {
		t.Helper()
		require.Eventually(t, func() bool { return written.Load() == n }, 5*time.Second, time.Millisecond, "%d script calls written, got %d", n, written.Load())
	}
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
	base := written.Load()
	a := take("a")
	require.Eventually(t, func() bool { n, _ := state(); return n == 1 }, 5*time.Second, time.Millisecond)
	onWire(base + 1)
	bb := take("b")
	require.Eventually(t, func() bool { n, _ := state(); return n == 2 }, 5*time.Second, time.Millisecond)
	onWire(base + 2)
	cc := take("c")
	require.Eventually(t, func() bool { _, q := state(); return q == 1 }, 5*time.Second, time.Millisecond)
	d := take("d")
	require.Eventually(t, func() bool { _, q := state(); return q == 2 }, 5*time.Second, time.Millisecond)

	a.cancel()
	bb.cancel()
	// b's cancellation does not end its call: a's, and b's, round trips
	// stay taken, and c and d stay queued until Redis answers.
	require.Eventually(t, func() bool { _, q := state(); return q == 2 }, 5*time.Second, time.Millisecond)
	thaw()
	require.NoError(t, returned(a, "a"), "the cancelled call sent alone is decided")
	require.NoError(t, returned(bb, "b"), "the cancelled call sent alone is decided")
	require.NoError(t, returned(cc, "c"))
	require.NoError(t, returned(d, "d"))
	ctx := context.Background()
	for _, key := range []string{"a", "b", "c", "d"} {
		r, err := s.Peek(ctx, key, ps, 1, time.Now())
		require.NoError(t, err)
		assert.Equal(t, int64(9), r.States[0].Remaining, "%s was charged once", key)
	}

	// A batch sent to the frozen Redis: its cancelled caller waits for it.
	// b's deadline ends its round trip, and the queue is sent in its place.
	warm()
	thaw = srv.Freeze(t)
	base = written.Load()
	a = take("a")
	require.Eventually(t, func() bool { n, _ := state(); return n == 1 }, 5*time.Second, time.Millisecond)
	onWire(base + 1)
	short := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_, err := s.Take(ctx, "b", ps, 1, time.Now())
		short <- err
	}()
	require.Eventually(t, func() bool { n, _ := state(); return n == 2 }, 5*time.Second, time.Millisecond)
	cc = take("c")
	require.Eventually(t, func() bool { _, q := state(); return q == 1 }, 5*time.Second, time.Millisecond)
	d = take("d")
	require.Eventually(t, func() bool { _, q := state(); return q == 2 }, 5*time.Second, time.Millisecond)
	require.ErrorIs(t, returned(call{err: short}, "b"), context.DeadlineExceeded)
	require.Eventually(t, func() bool { _, q := state(); return q == 0 }, 5*time.Second, time.Millisecond)
	cc.cancel()
	thaw()
	require.NoError(t, returned(cc, "c"), "the cancelled call sent in a batch is decided")
	require.NoError(t, returned(d, "d"))
	require.NoError(t, returned(a, "a"))
	for key, want := range map[string]int64{"a": 8, "c": 8, "d": 8} {
		r, err := s.Peek(ctx, key, ps, 1, time.Now())
		require.NoError(t, err)
		assert.Equal(t, want, r.States[0].Remaining, "%s was charged once more", key)
	}
}

// countingOptions are ClientOptions(addr) with timeouts only a test's
// contexts can reach, whose connections count in written the script calls
// written to them.
func countingOptions(addr string, written *atomic.Int64) *redis.UniversalOptions {
	opts := ClientOptions(addr)
	opts.ReadTimeout, opts.WriteTimeout, opts.PoolTimeout = time.Minute, time.Minute, time.Minute
	dial := opts.Dialer
	opts.Dialer = func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return scriptCounter{conn, written}, nil
	}
	return opts
}

// scriptCounter counts the script calls (EVALSHA or EVAL) written to its
// connection.
type scriptCounter struct {
	net.Conn
	n *atomic.Int64
}

func (c scriptCounter) Write(p []byte) (int, error) {
	if bytes.Contains(bytes.ToLower(p), []byte("eval")) {
		c.n.Add(1)
	}
	return c.Conn.Write(p)
}

// SyscallConn is the connection's own: go-redis reads through it whether
// an idle connection is still alive before it reuses it.
func (c scriptCounter) SyscallConn() (syscall.RawConn, error) {
	return c.Conn.(syscall.Conn).SyscallConn()
}
