package redisstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
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

// cutConn loses the reply to the first batch script written on it: Redis
// ran the script (its reply began to arrive), then the connection is cut.
type cutConn struct {
	net.Conn
	mu   sync.Mutex
	sent bool // a batch script was written and its reply is awaited
	done *bool
}

func (c *cutConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	if !*c.done && bytes.Contains(p, []byte(batchLua.sha.(string))) {
		c.sent, *c.done = true, true
	}
	c.mu.Unlock()
	return c.Conn.Write(p)
}

func (c *cutConn) Read(p []byte) (int, error) {
	c.mu.Lock()
	cut := c.sent
	c.mu.Unlock()
	if !cut {
		return c.Conn.Read(p)
	}
	if _, err := c.Conn.Read(p); err != nil {
		return 0, err
	}
	_ = c.Conn.Close()
	return 0, errors.New("connection cut by the test")
}

// A batch whose reply is lost after Redis ran it fails every caller, and
// charges each of them once: neither go-redis nor the store sends it
// again.
func TestBatchReplyLostChargesOnce(t *testing.T) {
	srv := testredis.Server(t)
	ctx := context.Background()
	var mu sync.Mutex
	done := false
	c := redis.NewClient(&redis.Options{Addr: srv.Addr, Dialer: func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		mu.Lock()
		defer mu.Unlock()
		return &cutConn{Conn: conn, done: &done}, nil
	}})
	t.Cleanup(func() { _ = c.Close() })
	s, err := New(c, WithPrefix(testredis.Prefix(t)), WithClientTime())
	require.NoError(t, err)
	ps, err := policytest.Validate([]core.Policy{core.PerMinute(10).Using(core.SlidingLog)})
	require.NoError(t, err)
	now := time.Now()
	// The batch script is cached: the batch is one EVALSHA that runs.
	require.NoError(t, c.ScriptLoad(ctx, batchLua.src.(string)).Err())

	s.batch.mu.Lock()
	s.batch.inFlight = maxInFlight
	s.batch.mu.Unlock()
	const n = 3
	errs := make(chan error, n)
	for i := range n {
		go func() {
			_, err := s.Take(ctx, fmt.Sprint("k", i), ps, 1, now)
			errs <- err
		}()
		require.Eventually(t, func() bool {
			s.batch.mu.Lock()
			defer s.batch.mu.Unlock()
			return len(s.batch.queue) == i+1
		}, 5*time.Second, time.Millisecond)
	}
	s.finished(&s.batch, true)
	for range n {
		assert.Error(t, <-errs, "the reply was lost")
	}
	s.finished(&s.batch, true)
	mu.Lock()
	require.True(t, done, "the batch script was sent")
	mu.Unlock()
	for i := range n {
		r, err := s.Peek(ctx, fmt.Sprint("k", i), ps, 1, now)
		require.NoError(t, err)
		assert.Equal(t, int64(9), r.States[0].Remaining, "k%d charged once", i)
	}
}
