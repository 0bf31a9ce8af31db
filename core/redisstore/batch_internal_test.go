package redisstore

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/policytest"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// A caller whose deadline ends while its call is still queued returns
// ctx's error, and its call is never sent: nothing is charged.
func TestQueuedCallerLeavesUncharged(t *testing.T) {
	s, err := New(testredis.Standalone(t), WithPrefix(testredis.Prefix(t)))
	require.NoError(t, err)
	ps, err := policytest.Validate([]core.Policy{core.PerMinute(10)})
	require.NoError(t, err)
	now := time.Now()

	// Every round trip is taken: the call queues.
	s.batch.mu.Lock()
	s.batch.inFlight = maxInFlight
	s.batch.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = s.Take(ctx, "k", ps, 1, now)
	require.ErrorIs(t, err, context.DeadlineExceeded)

	// The round trips end; the queue is sent, without the call.
	s.finished(&s.batch, true)
	s.finished(&s.batch, true)
	require.Eventually(t, func() bool {
		s.batch.mu.Lock()
		defer s.batch.mu.Unlock()
		return s.batch.inFlight == 0 && len(s.batch.queue) == 0
	}, 5*time.Second, time.Millisecond)
	r, err := s.Peek(context.Background(), "k", ps, 1, now)
	require.NoError(t, err)
	assert.Equal(t, int64(10), r.States[0].Remaining, "the abandoned call charged nothing")
}

// panicHook panics in the next calls it sees, as a faulty client hook
// would.
type panicHook struct{ left int }

func (h *panicHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *panicHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if h.left > 0 {
			h.left--
			panic("hook")
		}
		return next(ctx, cmd)
	}
}

func (h *panicHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// A call sent alone that panics on the caller's goroutine (in a client
// hook, say, under an HTTP server that recovers handler panics) gives its
// round trip back: the calls after it are still sent.
func TestPanicFreesRoundTrip(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: testredis.Addr(t)})
	t.Cleanup(func() { _ = c.Close() })
	c.AddHook(&panicHook{left: maxInFlight})
	s, err := New(c, WithPrefix(testredis.Prefix(t)))
	require.NoError(t, err)
	ps, err := policytest.Validate([]core.Policy{core.PerMinute(10)})
	require.NoError(t, err)
	now := time.Now()
	for range maxInFlight {
		func() {
			defer func() { assert.NotNil(t, recover()) }()
			_, _ = s.Take(context.Background(), "k", ps, 1, now)
		}()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	r, err := s.Take(ctx, "k", ps, 1, now)
	require.NoError(t, err)
	assert.Equal(t, int64(9), r.States[0].Remaining)
	s.batch.mu.Lock()
	defer s.batch.mu.Unlock()
	assert.Zero(t, s.batch.inFlight)
}

// A batch's round trip is bounded by its latest deadline and is cancelled
// by none of its callers.
func TestBatchContext(t *testing.T) {
	early, cancelEarly := context.WithTimeout(context.Background(), time.Second)
	defer cancelEarly()
	late, cancelLate := context.WithTimeout(context.Background(), time.Hour)
	defer cancelLate()
	reqs := []*request{{batched: batched{ctx: early}}, {batched: batched{ctx: late}}}
	ctx, cancel := batchContext(reqs)
	defer cancel()
	cancelEarly()
	assert.NoError(t, ctx.Err(), "one caller leaving does not fail the others")
	d, ok := ctx.Deadline()
	lateD, _ := late.Deadline()
	assert.True(t, ok)
	assert.Equal(t, lateD, d)

	reqs = append(reqs, &request{batched: batched{ctx: context.Background()}})
	ctx, cancel = batchContext(reqs)
	defer cancel()
	_, ok = ctx.Deadline()
	assert.False(t, ok, "a caller without deadline: the client's timeouts bound it")
}

func TestReadStr(t *testing.T) {
	for _, s := range []string{"", "WRONGTYPE", string(make([]byte, 40)), string(make([]byte, 300)), string(make([]byte, 70000))} {
		var b []byte
		switch n := len(s); {
		case n < 32:
			b = append(b, 0xa0|byte(n))
		case n < 256:
			b = append(b, 0xd9, byte(n))
		case n < 65536:
			b = append(b, 0xda, byte(n>>8), byte(n))
		default:
			b = append(b, 0xdb, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
		}
		b = append(append(b, s...), 0x01)
		got, rest, ok := readStr(string(b))
		require.True(t, ok, len(s))
		assert.Equal(t, s, got)
		assert.Equal(t, "\x01", rest)
		_, _, ok = readStr(string(b[:len(b)-2]))
		assert.False(t, ok, "cut short")
	}
	_, _, ok := readStr("\x05")
	assert.False(t, ok, "an integer is no string")
}

// A batch that ran for the read timeout without an answer, while no other
// round trip was answered, drops the calls queued behind it: they fail at
// once, unsent and uncharged. A batch cut short (by its callers'
// deadlines) or one that other answers show to be a slow moment drops
// nothing.
func TestDropStalled(t *testing.T) {
	s, err := New(testredis.Standalone(t), WithPrefix(testredis.Prefix(t)))
	require.NoError(t, err)
	s.queueWait = 250 * time.Millisecond // as with ClientOptions
	ps, err := policytest.Validate([]core.Policy{core.PerMinute(10)})
	require.NoError(t, err)
	now := time.Now()
	b := &s.batch
	b.mu.Lock()
	b.inFlight = maxInFlight // every round trip is taken: calls queue
	b.mu.Unlock()
	queue := func() chan error {
		done := make(chan error, 1)
		go func() {
			_, err := s.Take(context.Background(), "k", ps, 1, now)
			done <- err
		}()
		require.Eventually(t, func() bool {
			b.mu.Lock()
			defer b.mu.Unlock()
			return len(b.queue) == 1
		}, 5*time.Second, time.Millisecond)
		return done
	}
	done := queue()
	for _, tt := range []struct {
		name    string
		answers uint64 // the count when the batch was sent
		took    time.Duration
	}{
		{"cut short", 0, 10 * time.Millisecond},
		{"others answered", 1, time.Second},
	} {
		b.mu.Lock()
		s.dropStalled(b, b.answers-tt.answers, tt.took)
		n := len(b.queue)
		b.mu.Unlock()
		assert.Equal(t, 1, n, tt.name)
	}
	b.mu.Lock()
	s.dropStalled(b, b.answers, time.Second)
	b.mu.Unlock()
	require.ErrorIs(t, <-done, os.ErrDeadlineExceeded)

	// The round trips end; the next call goes alone; nothing was charged.
	s.finished(b, false)
	s.finished(b, false)
	r, err := s.Peek(context.Background(), "k", ps, 1, now)
	require.NoError(t, err)
	assert.Equal(t, int64(10), r.States[0].Remaining, "the dropped call charged nothing")
}
