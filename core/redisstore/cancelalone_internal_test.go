package redisstore

import (
	"context"
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

// A call with a deadline sent alone on a client that does not honour
// deadlines (go-redis's default, no ContextTimeoutEnabled) runs on a
// goroutine of the store; cancelled before its deadline while Redis has
// not answered yet, it waits for its reply until that deadline, as a
// batched call does, and is decided and charged once. Before, it returned
// at once with context.Canceled while Redis ran it all the same: the
// middleware, which asks a cancelled request again, charged it twice.
func TestCancelledCallOnGoroutineIsDecided(t *testing.T) {
	srv := testredis.Server(t)
	var written atomic.Int64
	opts := countingOptions(srv.Addr, &written)
	opts.ContextTimeoutEnabled = false
	c := redis.NewClient(opts.Simple())
	t.Cleanup(func() { _ = c.Close() })
	s, err := New(c, WithPrefix(testredis.Prefix(t)))
	require.NoError(t, err)
	require.False(t, s.ctxAware)
	ps, err := policytest.Validate([]core.Policy{core.PerMinute(10)})
	require.NoError(t, err)
	// The connection's handshake is made before Redis freezes: a call
	// cancelled while it still waits for it rightly returns uncharged.
	require.NoError(t, c.Ping(context.Background()).Err())

	base := written.Load()
	thaw := srv.Freeze(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out := make(chan error, 1)
	go func() {
		_, err := s.Take(ctx, "k", ps, 1, time.Now())
		out <- err
	}()
	require.Eventually(t, func() bool { return written.Load() == base+1 }, 5*time.Second, time.Millisecond, "the call is written to Redis")
	cancel()
	thaw()
	select {
	case err := <-out:
		require.NoError(t, err, "the cancelled call is decided")
	case <-time.After(20 * time.Second):
		t.Fatal("the cancelled call still waits")
	}
	r, err := s.Peek(context.Background(), "k", ps, 1, time.Now())
	require.NoError(t, err)
	assert.Equal(t, int64(9), r.States[0].Remaining, "the call was charged once")
}
