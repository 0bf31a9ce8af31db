package redisstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// contextAware reports whether client bounds its network waits by the
// context's deadline. go-redis does so only with ContextTimeoutEnabled;
// without it a silent server holds a call for the client's ReadTimeout
// (seconds), whatever the request's deadline.
func contextAware(client redis.UniversalClient) bool {
	switch c := client.(type) {
	case *redis.Client:
		return c.Options().ContextTimeoutEnabled
	case *redis.ClusterClient:
		return c.Options().ContextTimeoutEnabled
	case *redis.Ring:
		return c.Options().ContextTimeoutEnabled
	}
	return false
}

// eval runs script with one argument, within ctx's deadline the way call
// does.
func (s *Store) eval(ctx context.Context, script *redis.Script, keys []string, arg []byte) ([]int64, error) {
	if err := ctx.Err(); err != nil {
		return nil, err // the caller gave up already: no round trip
	}
	if s.inline(ctx) {
		reply, err := script.Run(ctx, s.client, keys, arg).Int64Slice()
		return reply, withContext(ctx, err)
	}
	type result struct {
		reply []int64
		err   error
	}
	done := make(chan result, 1)
	go func() {
		reply, err := script.Run(ctx, s.client, keys, arg).Int64Slice()
		done <- result{reply, err}
	}()
	select {
	case r := <-done:
		return r.reply, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// inline reports whether a call can run on the caller's goroutine: the
// client honours ctx's deadline itself, or ctx has no deadline (a request
// context that is only cancellable waits at most the client's own
// timeouts, which is bounded, and pays for no goroutine).
func (s *Store) inline(ctx context.Context) bool {
	if s.ctxAware {
		return true
	}
	_, ok := ctx.Deadline()
	return !ok
}

// call runs f so that it returns no later than ctx's deadline. When inline
// says so, f runs on the caller's goroutine. Otherwise f runs on its own
// goroutine and call stops waiting when ctx is done; f then finishes in the
// background within the client's own timeouts, and its result is dropped.
func (s *Store) call(ctx context.Context, f func(context.Context) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.inline(ctx) {
		return withContext(ctx, f(ctx))
	}
	done := make(chan error, 1)
	go func() { done <- f(ctx) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// withContext makes an error that ends a call after ctx was done match
// ctx.Err() too, so callers can test for context.DeadlineExceeded whatever
// the client reports (go-redis with ContextTimeoutEnabled says "i/o
// timeout").
func withContext(ctx context.Context, err error) error {
	if err == nil || ctx.Err() == nil || errors.Is(err, ctx.Err()) {
		return err
	}
	return fmt.Errorf("%w: %w", ctx.Err(), err)
}
