package redisstore_test

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/redisstore"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// silentServer accepts connections on loopback and never answers: a Redis
// that hangs.
func silentServer(t *testing.T) string {
	t.Helper()
	addr, _ := silentServerConns(t)
	return addr
}

// silentServerConns is silentServer that also tells how many connections
// it has accepted.
func silentServerConns(t *testing.T) (string, func() int) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var mu sync.Mutex
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			go func() { _, _ = io.Copy(io.Discard, c) }()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		<-done
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	})
	return ln.Addr().String(), func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(conns)
	}
}

// A store whose Redis is unreachable or silent returns an error by the
// context's deadline, whatever the client's own (long) timeouts.
func TestDeadline(t *testing.T) {
	const deadline = 150 * time.Millisecond
	// The client's timeouts are far longer than the deadline, so only the
	// context can end the call early. The bound below sits well under them.
	const bound = 3 * time.Second
	ps := policies(t, core.PerSecond(5))
	targets := map[string]string{
		"nothing listens": testredis.DeadAddr(t),
		"never answers":   silentServer(t),
	}
	for name, addr := range targets {
		for _, ctxTimeouts := range []bool{false, true} {
			opts := &redis.Options{
				Addr:                  addr,
				DialTimeout:           10 * time.Second,
				ReadTimeout:           10 * time.Second,
				WriteTimeout:          10 * time.Second,
				ContextTimeoutEnabled: ctxTimeouts,
			}
			label := name
			if ctxTimeouts {
				label += "/ContextTimeoutEnabled"
			}
			t.Run(label, func(t *testing.T) {
				c := redis.NewClient(opts)
				t.Cleanup(func() { _ = c.Close() })
				s, err := redisstore.New(c)
				require.NoError(t, err)
				calls := map[string]func(ctx context.Context) error{
					"take": func(ctx context.Context) error {
						_, err := s.Take(ctx, "k", ps, 1, base)
						return err
					},
					"peek": func(ctx context.Context) error {
						_, err := s.Peek(ctx, "k", ps, 1, base)
						return err
					},
					"reset": func(ctx context.Context) error { return s.Reset(ctx, "k", ps) },
				}
				for op, call := range calls {
					ctx, cancel := context.WithTimeout(context.Background(), deadline)
					start := time.Now()
					err := call(ctx)
					elapsed := time.Since(start)
					cancel()
					require.Error(t, err, op)
					assert.Contains(t, err.Error(), "redisstore: "+op, op)
					if name == "never answers" {
						assert.ErrorIs(t, err, context.DeadlineExceeded, op)
					}
					assert.Less(t, elapsed, bound, "%s returned after %v; the deadline was %v", op, elapsed, deadline)
				}
			})
		}
	}
}

// A context already done fails at once, without a round trip.
func TestCanceledContext(t *testing.T) {
	c := testredis.Standalone(t)
	hook := &counter{cmds: map[string]int{}}
	c.AddHook(hook)
	s, _ := store(t, c)
	ps := policies(t, core.PerSecond(5))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := s.Take(ctx, "k", ps, 1, base)
	assert.True(t, errors.Is(err, context.Canceled), "got %v", err)
	_, err = s.Peek(ctx, "k", ps, 1, base)
	assert.True(t, errors.Is(err, context.Canceled), "got %v", err)
	err = s.Reset(ctx, "k", ps)
	assert.True(t, errors.Is(err, context.Canceled), "got %v", err)
	assert.Empty(t, hook.take(), "no command may reach Redis")
}

// A Redis that accepts but never answers costs a call about the client's
// read timeout, however many calls wait at once and however long their
// deadlines: once a batch has run that long without an answer, the calls
// queued behind it fail, uncharged, instead of each waiting in turn for a
// batch of its own to time out.
//
// The turns are counted, not timed: each batch that goes out takes a
// connection, whose handshake waits out a read timeout on the silent
// server. Calls that wait in turn open one per batch, some 18 for 1,000
// calls; calls that fail in time leave it at a few. The time is bounded
// too, loosely, as a loaded machine stretches it several times over: a
// call held to its 10 s deadline still fails the bound.
func TestStalledQueueFailsInTime(t *testing.T) {
	addr, conns := silentServerConns(t)
	s, _ := optionsStore(t, addr)
	ps := policies(t, core.PerMinute(10))
	timeout := redisstore.ClientOptions().ReadTimeout
	const callers = 1000 // some 16 batches
	var mu sync.Mutex
	var slowest time.Duration
	var wg sync.WaitGroup
	for i := range callers {
		wg.Go(func() {
			ctx := context.Background()
			if i%2 == 1 { // a deadline far beyond the read timeout
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, 10*time.Second)
				defer cancel()
			}
			start := time.Now()
			_, err := s.Take(ctx, "k", ps, 1, time.Now())
			took := time.Since(start)
			assert.Error(t, err)
			mu.Lock()
			slowest = max(slowest, took)
			mu.Unlock()
		})
	}
	wg.Wait()
	t.Logf("slowest of %d calls on a silent Redis: %v (ReadTimeout %v); %d connections", callers, slowest, timeout, conns())
	assert.LessOrEqual(t, conns(), 8, "batches went out in turn, each on a connection of its own")
	assert.Less(t, slowest, 5*time.Second)
}

// A Cluster client whose nodes never answer, and whose timeouts are long,
// holds no call past its deadline: not even the first, which has the
// client look for its slot map.
func TestClusterDeadlineBeforeSlotMap(t *testing.T) {
	const deadline = 150 * time.Millisecond
	const bound = 3 * time.Second // far under the client's timeouts
	ps := policies(t, core.PerSecond(5))
	c := redis.NewClusterClient(&redis.ClusterOptions{
		Addrs:        []string{silentServer(t)},
		DialTimeout:  10 * time.Second,
		ReadTimeout:  10 * time.Second,
		WriteTimeout: 10 * time.Second,
	})
	t.Cleanup(func() { _ = c.Close() })
	s, err := redisstore.New(c)
	require.NoError(t, err)
	for _, op := range []string{"take", "peek"} {
		ctx, cancel := context.WithTimeout(context.Background(), deadline)
		start := time.Now()
		if op == "take" {
			_, err = s.Take(ctx, "k", ps, 1, base)
		} else {
			_, err = s.Peek(ctx, "k", ps, 1, base)
		}
		elapsed := time.Since(start)
		cancel()
		require.Error(t, err, op)
		assert.ErrorIs(t, err, context.DeadlineExceeded, op)
		assert.Less(t, elapsed, bound, "%s returned after %v; the deadline was %v", op, elapsed, deadline)
	}
}

// A call sent alone, with a deadline, before the slot map was known still
// lets the store find it once Redis answers: Domain names masters.
func TestClusterSlotMapFoundByDeadlineCall(t *testing.T) {
	ps := policies(t, core.Per(100, time.Hour))
	s, _ := store(t, testredis.Cluster(t))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := s.Take(ctx, "k", ps, 1, base)
	require.NoError(t, err)
	assert.NotEqual(t, "", s.Domain("k"))
}
