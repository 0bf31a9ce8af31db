package redisstore

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/policytest"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// A call sent alone on its caller's goroutine during which the client
// panics (the caller recovers it) gives its round trip back, but does not
// count as a round trip Redis answered: such a count tells a stalled
// batch that Redis is alive (see dropStalled), and nothing came from
// Redis. Before, the panic left the call's error nil, which counted as an
// answer.
func TestCallerPanicIsNoAnswer(t *testing.T) {
	c := redis.NewUniversalClient(ClientOptions(testredis.Addr(t))) // inline: the caller's goroutine
	t.Cleanup(func() { _ = c.Close() })
	boom := errors.New("boom")
	hook := &armedPanic{value: boom}
	c.AddHook(hook)
	s, err := New(c, WithPrefix(testredis.Prefix(t)))
	require.NoError(t, err)
	require.True(t, s.ctxAware)
	ps, err := policytest.Validate([]core.Policy{core.PerMinute(10)})
	require.NoError(t, err)

	hook.armed.Store(true)
	recovered := func() (p any) {
		defer func() { p = recover() }()
		_, _ = s.Take(context.Background(), "a", ps, 1, time.Now())
		return nil
	}()
	require.Equal(t, boom, recovered, "the panic reached the caller")
	s.batch.mu.Lock()
	inFlight, answers := s.batch.inFlight, s.batch.answers
	s.batch.mu.Unlock()
	assert.Zero(t, inFlight, "the round trip was given back")
	assert.Zero(t, answers, "no answer from Redis was counted")
}
