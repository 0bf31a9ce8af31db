package faulttest

import (
	"context"
	"fmt"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/redisstore"
	"github.com/ratewindow/ratewindow/core/resilient"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// TestBreakerOnRedisRefusals sends calls through a breaker (threshold 3)
// with a fallback to a real Redis that refuses them in each way the
// package documentation sorts: a full Redis (OOM) and a user its ACL
// forbids the scripts (NOPERM, ErrMisconfigured) count as failures and
// open the breaker, the fallback deciding every call; a frozen Redis
// (SIGSTOP) whose callers cancel their calls opens nothing, each caller
// getting its own error back and no fallback decision, and one whose
// calls run out of time opens it.
func TestBreakerOnRedisRefusals(t *testing.T) {
	t.Parallel()
	type setup func(t *testing.T, p *proc) (redis.UniversalClient, func(context.Context) (context.Context, context.CancelFunc))
	withDeadline := func(ctx context.Context) (context.Context, context.CancelFunc) {
		return context.WithTimeout(ctx, 100*time.Millisecond)
	}
	// A Redis that refuses answers at once; a deadline long enough for a
	// busy machine makes sure it is the refusal the breaker counts, not a
	// call that ran out of time (which would count as well, and hide a
	// refusal that did not).
	withLongDeadline := func(ctx context.Context) (context.Context, context.CancelFunc) {
		return context.WithTimeout(ctx, 5*time.Second)
	}
	tests := []struct {
		name  string
		setup setup
		opens bool
		want  error // what the primary's errors match, nil for the context's
	}{
		{"OOM", func(t *testing.T, p *proc) (redis.UniversalClient, func(context.Context) (context.Context, context.CancelFunc)) {
			testredis.FillUp(t, p.client(t))
			return p.client(t), withLongDeadline
		}, true, redisstore.ErrOutOfMemory},
		{"NOPERM", func(t *testing.T, p *proc) (redis.UniversalClient, func(context.Context) (context.Context, context.CancelFunc)) {
			require.NoError(t, p.client(t).Do(context.Background(),
				"ACL", "SETUSER", "limiter", "reset", "on", ">pw", "~*", "+@all", "-@scripting").Err())
			c := redis.NewClient(&redis.Options{Addr: p.addr(), Username: "limiter", Password: "pw",
				ContextTimeoutEnabled: true, MaxRetries: -1})
			t.Cleanup(func() { _ = c.Close() })
			return c, withLongDeadline
		}, true, redisstore.ErrMisconfigured},
		{"frozen, deadline", func(t *testing.T, p *proc) (redis.UniversalClient, func(context.Context) (context.Context, context.CancelFunc)) {
			freeze(t, p)
			return p.client(t), withDeadline
		}, true, context.DeadlineExceeded},
		{"frozen, cancelled", func(t *testing.T, p *proc) (redis.UniversalClient, func(context.Context) (context.Context, context.CancelFunc)) {
			freeze(t, p)
			// go-redis bounds its waits by a deadline, not by a
			// cancellation: a cancelled call waits out the read timeout.
			c := redis.NewClient(&redis.Options{Addr: p.addr(), ContextTimeoutEnabled: true, MaxRetries: -1,
				ReadTimeout: 500 * time.Millisecond}) // far past the cancellation, even on a busy machine
			t.Cleanup(func() { _ = c.Close() })
			return c, func(ctx context.Context) (context.Context, context.CancelFunc) {
				ctx, cancel := context.WithCancel(ctx)
				time.AfterFunc(50*time.Millisecond, cancel)
				return ctx, cancel
			}
		}, false, context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := startRedis(t)
			client, newCtx := tt.setup(t, p)
			rs, err := redisstore.New(client)
			require.NoError(t, err)
			var mu sync.Mutex
			var causes []error
			store, err := resilient.New(rs, resilient.WithFailureThreshold(3), resilient.WithOpenInterval(time.Minute),
				resilient.WithFallback(1), resilient.WithOnFallback(func(_ string, cause error) {
					mu.Lock()
					causes = append(causes, cause)
					mu.Unlock()
				}))
			require.NoError(t, err)
			l, err := core.NewLimiter(store, []core.Policy{core.Per(100, time.Hour)})
			require.NoError(t, err)
			for i := range 5 {
				ctx, cancel := newCtx(context.Background())
				d, err := l.Allow(ctx, fmt.Sprint("k", i))
				cancel()
				if tt.opens {
					require.NoError(t, err, "call %d: the fallback decides", i)
					assert.True(t, d.Fallback, "call %d", i)
				} else {
					assert.ErrorIs(t, err, tt.want, "call %d: the caller's own error", i)
					assert.False(t, d.Fallback, "call %d: nobody waits for a decision", i)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if !tt.opens {
				assert.Equal(t, resilient.Closed, store.State(), "cancelled calls say nothing of Redis")
				assert.Empty(t, causes)
				return
			}
			assert.Equal(t, resilient.Open, store.State())
			require.Len(t, causes, 5)
			for i, c := range causes {
				if i < 3 {
					assert.ErrorIs(t, c, tt.want, "call %d reached Redis", i)
				} else {
					assert.ErrorIs(t, c, resilient.ErrCircuitOpen, "call %d: the breaker is open", i)
				}
			}
		})
	}
}

// freeze stops p's process (SIGSTOP: connections are accepted, nothing is
// answered) until the test ends.
func freeze(t *testing.T, p *proc) {
	t.Helper()
	p.mu.Lock()
	proc := p.cmd.Process
	p.mu.Unlock()
	require.NoError(t, proc.Signal(syscall.SIGSTOP))
	t.Cleanup(func() { _ = proc.Signal(syscall.SIGCONT) })
}
