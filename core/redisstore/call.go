package redisstore

import (
	"context"

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

// eval runs the script, within ctx's deadline the way call does.
func (s *Store) eval(ctx context.Context, keys []string, args []any) ([]int64, error) {
	if err := ctx.Err(); err != nil {
		return nil, err // the caller gave up already: no round trip
	}
	if s.inline(ctx) {
		return takeScript.Run(ctx, s.client, keys, args...).Int64Slice()
	}
	type result struct {
		reply []int64
		err   error
	}
	done := make(chan result, 1)
	go func() {
		reply, err := takeScript.Run(ctx, s.client, keys, args...).Int64Slice()
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
		return f(ctx)
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
