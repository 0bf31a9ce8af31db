package redisstore

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/internal/testredis"
)

// retry's every way out for want of time, on a Redis that answers
// LOADING: a context cancelled between attempts, a deadline that the next
// wait would pass. Each returns an error that matches the context's and
// keeps Redis's answer. Before, the cancelled context's exit returned the
// bare answer, so a caller that read it first (evalAlone and call, off the
// caller's goroutine) could not tell its context had ended.
func TestRetryEndsWithItsContext(t *testing.T) {
	srv := testredis.StartLoading(t, func(context.Context, *redis.Client) error { return nil })
	c := redis.NewClient(&redis.Options{Addr: srv.Addr, MaxRetries: -1}) // go-redis retries no LOADING itself
	t.Cleanup(func() { _ = c.Close() })
	s, err := New(c)
	require.NoError(t, err)
	ping := func() error { return c.Ping(context.Background()).Err() }
	first := ping()
	require.True(t, redis.HasErrorPrefix(first, "LOADING"), "Redis is loading: %v", first)

	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		attempts := 0
		err := s.retry(ctx, "k", first, func() error {
			attempts++
			err := ping()
			if attempts == 3 {
				cancel() // after the answer: retry meets it between attempts
			}
			return err
		})
		assert.Equal(t, 3, attempts, "no attempt after the cancellation")
		assert.ErrorIs(t, err, context.Canceled)
		assert.True(t, redis.HasErrorPrefix(err, "LOADING"), "Redis's answer is kept: %v", err)
		assert.Contains(t, err.Error(), "context canceled: retried for ")
	})
	t.Run("deadline", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		err := s.retry(ctx, "k", first, ping)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assert.True(t, redis.HasErrorPrefix(err, "LOADING"), "Redis's answer is kept: %v", err)
	})
}
