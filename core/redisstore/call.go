package redisstore

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ratewindow/ratewindow/core"
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

// readTimeout returns the read timeout of a client the store batches for,
// or 0 if it has none (go-redis has normalised the option by then: 0 and
// below mean no timeout).
func readTimeout(client redis.UniversalClient) time.Duration {
	var d time.Duration
	switch c := client.(type) {
	case *redis.Client:
		d = c.Options().ReadTimeout
	case *redis.ClusterClient:
		d = c.Options().ReadTimeout
	}
	return max(d, 0)
}

// request is what one script call sends, in one allocation: the command's
// arguments as go-redis takes them (the keys by pointer, which go-redis
// writes as strings and routes by, so they are not boxed one by one), the
// keys, the buffer of the MessagePack argument, and what a request that
// waits for a batch needs.
type request struct {
	args [4 + core.MaxPolicies]any
	keys [core.MaxPolicies]string
	buf  [argsSize]byte
	batched
}

// argsSize bounds appendArgs' output: 9+9+1+1 bytes, then 2+9+9 per policy.
const argsSize = 20 + 20*core.MaxPolicies

// newRequest builds the call of Take (charge) or Peek for key.
func (s *Store) newRequest(key string, policies []core.Policy, cost, now int64, charge bool) *request {
	return s.newTaggedRequest(tag(key), policies, cost, now, charge)
}

// newTaggedRequest is newRequest for the keys whose hash tag is t.
func (s *Store) newTaggedRequest(t string, policies []core.Policy, cost, now int64, charge bool) *request {
	r := new(request)
	n := len(policies)
	s.fillTaggedKeys(r.keys[:n], t, policies)
	// args[0] and args[1], the command and the script, are set by script.run.
	r.args[2] = n
	for i := range n {
		r.args[3+i] = &r.keys[i]
	}
	r.args[3+n] = appendArgs(r.buf[:0], now, cost, charge, s.serverTime, policies)
	return r
}

// appendArgs appends the script's argument: now (Unix µs), cost, charge,
// serverTime, then per policy its algorithm letter, limit and window.
func appendArgs(b []byte, now, cost int64, charge, serverTime bool, policies []core.Policy) []byte {
	b = appendInt(b, now)
	b = appendInt(b, cost)
	b = appendBool(b, charge)
	b = appendBool(b, serverTime)
	for i := range policies {
		p := &policies[i]
		b = appendChar(b, algCode(p.Algorithm))
		b = appendInt(b, p.Limit)
		b = appendInt(b, p.Window.Milliseconds())
	}
	return b
}

// evalAlone runs sc for r in a round trip of its own, within ctx's
// deadline the way call does, retrying cluster answers that a later
// attempt gets past (runRetried), and returns the script's reply. Unlike
// call, it does not return at a cancellation before the deadline: its
// caller waits for the reply (until the deadline at most), so that it
// knows whether it was charged.
func (s *Store) evalAlone(ctx context.Context, sc *script, r *request, n int) (string, error) {
	args := r.args[:4+n]
	if s.inline(ctx) {
		reply, err := s.runRetried(ctx, r.keys[0], sc, args)
		return reply, withContext(ctx, err)
	}
	type result struct {
		reply string
		err   error
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- result{"", panicked(p)}
			}
		}()
		reply, err := s.runRetried(ctx, r.keys[0], sc, args)
		done <- result{reply, err}
	}()
	select {
	case res := <-done:
		return res.reply, withContext(ctx, res.err)
	case <-ctx.Done():
	}
	// Cancelled before its deadline: the call may be in Redis's hands
	// already, and a caller that returned now would not know it was
	// charged. It waits for the reply until its deadline, as a call sent
	// alone on its caller's goroutine (see inline) or in a batch (see
	// sentAnswer) does.
	if d, ok := ctx.Deadline(); ok && errors.Is(ctx.Err(), context.Canceled) {
		t := time.NewTimer(time.Until(d))
		defer t.Stop()
		select {
		case res := <-done:
			return res.reply, withContext(ctx, res.err)
		case <-t.C:
		}
	}
	return "", ctx.Err()
}

// inline reports whether a call can run on the caller's goroutine: the
// client honours ctx's deadline itself, or ctx has no deadline (a request
// context that is only cancellable waits at most the client's own
// timeouts, which is bounded, and pays for no goroutine). Such a call does
// not return at ctx's cancellation, go-redis does not honour it: it waits
// for its reply, and is decided. That is deliberate: the middleware asks
// the store again, detached, for a request cancelled before its decision
// came (net/http cancels the context of a client that half-closes as it
// sends), and a call that returned at cancellation after Redis ran it
// would be charged twice.
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
// A panic of f there (of a client hook) is f's error (see
// ErrClientPanicked).
func (s *Store) call(ctx context.Context, f func(context.Context) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.inline(ctx) {
		return withContext(ctx, f(ctx))
	}
	done := make(chan error, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- panicked(p)
			}
		}()
		done <- f(ctx)
	}()
	select {
	case err := <-done:
		return withContext(ctx, err)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// withContext makes an error that ends a call after ctx was done match
// ctx.Err() too, so callers can test for context.DeadlineExceeded whatever
// the client reports (go-redis with ContextTimeoutEnabled says "i/o
// timeout"). A call whose deadline has passed counts as done even before
// ctx says so: the connection's deadline, which go-redis sets to ctx's,
// and ctx's own timer fire at the same instant, in either order, and the
// call may return between the two.
func withContext(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	cause := ended(ctx)
	if cause == nil || errors.Is(err, cause) {
		return err
	}
	return &textError{cause.Error() + ": " + bare(err), []error{cause, err}}
}

// ended returns ctx.Err(), or context.DeadlineExceeded when ctx's deadline
// has passed but its timer has not fired yet: a call then counts as done,
// and its caller as gone (see withContext and left).
func ended(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d, ok := ctx.Deadline(); ok && !time.Now().Before(d) {
		return context.DeadlineExceeded
	}
	return nil
}
