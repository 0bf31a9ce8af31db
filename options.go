package ratewindow

import (
	"time"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/headers"
	"github.com/ratewindow/ratewindow/internal/options"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

// Option configures the middleware. Every adapter's New takes the same
// Options, applied in order (a later option wins). An option given a nil
// function makes New fail, wrapping core.ErrInvalidConfig: a KeyFunc that
// is nil because an error was ignored must not turn into a silent default.
type Option func(*settings)

// settings are the resolved options; internal/middleware reads them.
type settings = options.Settings[Handler, Event]

// WithLimiterFunc chooses the limiter per request with f, for example by
// the plan of the request's API key: free clients on a 100/min limiter,
// paying ones on 1000/min. key is the rate-limit key the key func gave, as
// the store sees it ("hdr:x-api-key:abc123", hashed if long): read the API
// key itself from r (r.Header("X-API-Key")). f returning nil, nil uses the
// limiter given to New; a request for which it does so while no default
// limiter is set cannot be classified (ErrNoLimiter), nor can one for
// which it returns a core.Limiter that core.NewLimiter did not make.
// Returning keyfuncs.ErrSkip lets the request pass unlimited; an error
// wrapping keyfuncs.ErrNoKey or ErrNoLimiter leaves it unclassified; any
// other error is handled like a store error (fail open or closed).
//
// Limiters may share one store. Policies with the same Name, Window and
// Algorithm share their counts, so name tier policies alike (say
// "per-minute") if a client's usage should follow it across an upgrade.
func WithLimiterFunc(f func(r keyfuncs.Request, key string) (*core.Limiter, error)) Option {
	return func(c *settings) {
		if f == nil {
			c.NilArg("WithLimiterFunc")
		}
		c.LimiterFunc = f
	}
}

// WithKeyFunc sets how the key is derived (default keyfuncs.RemoteIP, the
// TCP peer address). Behind a reverse proxy or load balancer the peer is the
// proxy, so by default every client would share one quota: key by
// keyfuncs.NewClientIP, given your proxies' addresses, instead.
func WithKeyFunc(f keyfuncs.KeyFunc) Option {
	return func(c *settings) {
		if f == nil {
			c.NilArg("WithKeyFunc")
		}
		c.KeyFunc = f
	}
}

// WithCost sets the cost of each request (weighted requests): f returns
// its weight in units of the policies' limits, e.g. 10 for an export
// endpoint. The cost must be at least 1 and at most the smallest limit;
// otherwise the request cannot be classified: it is answered 400 and
// reported with Outcome UnclassifiedRejected and core.ErrInvalidCost (see
// WithPassUnclassified).
func WithCost(f func(r keyfuncs.Request) int64) Option {
	return func(c *settings) {
		if f == nil {
			c.NilArg("WithCost")
		}
		c.CostFunc = f
	}
}

// WithSkip exempts the requests for which skip returns true: they pass
// without being counted, and are reported with Outcome Skipped.
func WithSkip(skip func(r keyfuncs.Request) bool) Option {
	return func(c *settings) {
		if skip == nil {
			c.NilArg("WithSkip")
		}
		c.Skip = skip
	}
}

// WithObserveOnly switches enforcement off (on == true) or on. In
// observe-only mode every request is counted, the headers are written (a
// client past its quota sees remaining 0), and a request enforcement would
// deny is passed on and reported with Outcome WouldDeny. Use it to roll out
// a new limit safely.
func WithObserveOnly(on bool) Option { return func(c *settings) { c.ObserveOnly = on } }

// WithObserveOnlyFunc makes observe-only a per-request choice, to switch
// enforcement on tenant by tenant: return true to observe, false to
// enforce.
func WithObserveOnlyFunc(f func(r keyfuncs.Request) bool) Option {
	return func(c *settings) {
		if f == nil {
			c.NilArg("WithObserveOnlyFunc")
		}
		c.ObserveOnlyFunc = f
	}
}

// WithFailClosed answers 503 Service Unavailable when the limiter fails,
// with the JSON body {"error":"rate_limiter_unavailable","message":"..."}
// (see WithErrorHandler to change it). Observe-only requests still pass.
// Without it the middleware fails open: requests pass when the limiter
// fails, and the error is reported with Outcome StoreErrorPassed. A
// request whose client cancelled it (or half-closed the connection) is not
// a failure: it is decided on a context detached from the cancellation
// (see the package documentation), never passed for it.
//
// Either way, a middleware with no OnDecision hook logs the failures to
// slog.Default() (Warn when passed, Error when answered 503), at most one
// record per second for each, the next one counting those held back in
// "suppressed", so a dead or mistyped store does not go unnoticed. Set a
// hook (see WithOnDecision) to report them your own way.
func WithFailClosed() Option { return func(c *settings) { c.FailClosed = true } }

// WithTimeout bounds every store call to d, on top of the request's own
// context. A call that runs out of time is a store error (fail open or
// closed). Zero means no extra bound. The bound is the context's deadline,
// which the store must honour (the memory and Redis stores do). A d under
// a millisecond is refused: no store call to Redis is that fast, and
// WithTimeout(50), meant as 50ms, is 50ns.
func WithTimeout(d time.Duration) Option { return func(c *settings) { c.Timeout = d } }

// WithHeaders sets how the rate-limit header fields are written (mode,
// every policy or only the binding one, ...). Retry-After is written on
// every denial whatever the mode.
func WithHeaders(w headers.Writer) Option { return func(c *settings) { c.Headers = w } }

// WithDenyHandler replaces the response to a denied request. The
// middleware has already written the rate-limit headers, Retry-After and
// Cache-Control: no-store (so that no shared cache serves one client's
// denial to others; the handler may set its own); the handler writes the
// status and body (see Response: only its first Send counts, a status
// outside 200-599 becomes 429, and a handler that sends nothing has the
// request answered 429 with no body). The default answers 429 Too Many
// Requests with a JSON body such as
//
//	{"error":"rate_limited","message":"rate limit exceeded, retry in 3s","retry_after":3}
//
// where retry_after is the same whole number of seconds as Retry-After.
func WithDenyHandler(h Handler) Option {
	return func(c *settings) {
		if h == nil {
			c.NilArg("WithDenyHandler")
		}
		c.DenyHandler = h
	}
}

// WithErrorHandler replaces the fail-closed response. As before a denial,
// the middleware has set Cache-Control: no-store, and the handler is held
// to Response's contract, with 503 as its default status. The default answers
// 503 Service Unavailable with the JSON body
//
//	{"error":"rate_limiter_unavailable","message":"the rate limiter is unavailable, try again later"}
//
// and never shows the underlying error to the client; the OnDecision hook
// sees it in Event.Err.
func WithErrorHandler(h Handler) Option {
	return func(c *settings) {
		if h == nil {
			c.NilArg("WithErrorHandler")
		}
		c.ErrorHandler = h
	}
}

// WithOnDecision sets hooks called synchronously, in order, once per
// request, with everything the middleware decided: before the next handler
// runs, or after the deny or error response was written. Give it every hook
// at once, e.g. a metrics collector, a top-keys summary and a logger:
//
//	ratewindow.WithOnDecision(collector.Observe, top.Observe, logging.Hook(logger))
//
// Keep hooks fast; they are on the request path. When no hook is set no
// Event is built. A later WithOnDecision replaces the hooks of an earlier
// one.
//
// With no hook, the middleware still logs limiter failures (store errors,
// timeouts) to slog.Default(), throttled to one record per second for each
// of fail-open and fail-closed (see WithFailClosed), and so the decisions
// of core/resilient's local fallback (a store call that failed behind
// it), one Warn record per second at most for each of allowed, denied
// and would-deny. Any hook replaces that
// default, so a hook of yours that should also log failures includes
// logging.Hook. To silence it, give a hook that does nothing:
//
//	ratewindow.WithOnDecision(func(ratewindow.Event) {})
func WithOnDecision(hooks ...func(Event)) Option {
	return func(c *settings) {
		for _, f := range hooks {
			if f == nil {
				c.NilArg("WithOnDecision")
			}
		}
		c.OnDecision = chain(hooks)
	}
}

// chain is one hook that calls each of hooks in order: the hook itself when
// there is one, nil when there is none.
func chain(hooks []func(Event)) func(Event) {
	switch len(hooks) {
	case 0:
		return nil
	case 1:
		return hooks[0]
	}
	hs := make([]func(Event), len(hooks))
	copy(hs, hooks)
	return func(ev Event) {
		for _, h := range hs {
			h(ev)
		}
	}
}

// WithUnclassifiedHandler replaces the response to a request the limiter
// cannot classify. As before a denial, the middleware has set
// Cache-Control: no-store, and the handler is held to Response's
// contract, with 400 as its default status. The default answers 400 Bad
// Request, with no Retry-After (waiting would not help), and a JSON body
// saying why:
//
//	{"error":"no_rate_limit_key","message":"..."}     the key func found no key
//	{"error":"invalid_request_cost","message":"..."}  cost below 1 or above a limit
//	{"error":"no_rate_limiter","message":"..."}       no limiter applies
func WithUnclassifiedHandler(h Handler) Option {
	return func(c *settings) {
		if h == nil {
			c.NilArg("WithUnclassifiedHandler")
		}
		c.UnclassifiedHandler = h
	}
}

// WithPassUnclassified lets a request the limiter cannot classify pass on,
// uncounted, and reports it with Outcome UnclassifiedPassed. By default
// such a request is answered 400 (Outcome UnclassifiedRejected): a request
// with no key (say, Header("X-API-Key", nil) and no API key) or a cost
// above the limit is not a store outage, and fail-open must not wave it
// through. Use this only when every route has another line of defence. A
// request whose key func or limiter func failed after its client cancelled
// it (or half-closed the connection) is still answered 400: it has a key,
// only not looked up, and passing it would let a client skip its limit.
func WithPassUnclassified() Option { return func(c *settings) { c.PassUnclassified = true } }
