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

// A call with no deadline, cancelled while its batch waits for a Redis
// that does not answer (its process frozen), waits as a call sent alone
// does: for the batch's round trip, which the client's read timeout ends,
// and no longer. Its error says both, the cancellation and the timeout,
// so it did not return at the cancellation (the middleware asks a
// cancelled request again, and a call that returned then might be
// charged twice). So for a batch that is one script call, and one that
// is a pipeline of the calls' own.
func TestCancelledBatchedCallOnAHungRedisWaitsOneReadTimeout(t *testing.T) {
	const readTimeout = 400 * time.Millisecond
	for _, pipelined := range []bool{false, true} {
		name := "script"
		if pipelined {
			name = "pipeline"
		}
		t.Run(name, func(t *testing.T) {
			srv := testredis.Server(t)
			c := redis.NewClient(&redis.Options{Addr: srv.Addr, ReadTimeout: readTimeout, WriteTimeout: readTimeout, MaxRetries: -1})
			t.Cleanup(func() { _ = c.Close() })
			s, err := New(c, WithPrefix(testredis.Prefix(t)), WithClientTime())
			require.NoError(t, err)
			s.batch.slotted.Store(pipelined)
			ps, err := policytest.Validate([]core.Policy{core.PerMinute(10)})
			require.NoError(t, err)

			keys := []string{"a", "b", "c"}
			first, cancelFirst := context.WithCancel(context.Background())
			t.Cleanup(cancelFirst)
			ctxs := []context.Context{first, context.Background(), context.Background()}
			answers := queueUnder(t, s, ps, ctxs, keys)
			srv.Freeze(t)
			s.finished(&s.batch, true) // the batch is sent to a Redis that does not answer
			require.Eventually(t, func() bool {
				s.batch.mu.Lock()
				defer s.batch.mu.Unlock()
				return len(s.batch.queue) == 0
			}, 5*time.Second, time.Millisecond, "the batch was sent")
			sent := time.Now()
			cancelFirst()

			for i, ch := range answers {
				var a timedErr
				select {
				case a = <-ch:
				case <-time.After(30 * time.Second):
					t.Fatalf("%s: no answer in 30 s", keys[i])
				}
				require.Error(t, a.err, keys[i])
				assert.ErrorIs(t, a.err, os.ErrDeadlineExceeded, "%s: the round trip timed out", keys[i])
				assert.Less(t, a.at.Sub(sent), 4*readTimeout, "%s: answered within about one read timeout", keys[i])
				if i == 0 {
					assert.ErrorIs(t, a.err, context.Canceled, "%s: its caller was cancelled", keys[i])
				}
			}
		})
	}
}
