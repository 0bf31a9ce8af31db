package ratewindow

import (
	"fmt"
	"time"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/headers"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

// Config is the configuration of one middleware instance. Build it with
// Options; every adapter's New takes the same Options. The zero value of
// each field is the documented default.
type Config struct {
	// Limiter decides requests unless LimiterFunc picks another one. The
	// adapters' New functions set it from their first argument.
	Limiter *core.Limiter
	// LimiterFunc, if set, chooses the limiter per request (see
	// WithLimiterFunc).
	LimiterFunc LimiterFunc
	// KeyFunc derives the key; nil means keyfuncs.RemoteIP.
	KeyFunc keyfuncs.KeyFunc
	// CostFunc weighs a request; nil means every request costs 1.
	CostFunc CostFunc
	// Skip, if set and true for a request, lets it pass unlimited.
	Skip func(r keyfuncs.Request) bool
	// ObserveOnly computes and reports decisions and writes headers but
	// never blocks.
	ObserveOnly bool
	// ObserveOnlyFunc, if set, makes the observe-only choice per request
	// (true: observe; false: enforce). ObserveOnly, when true, wins.
	ObserveOnlyFunc func(r keyfuncs.Request) bool
	// FailClosed answers 503 when the limiter fails; false (the default)
	// lets the request pass.
	FailClosed bool
	// Timeout bounds each store call; zero means only the request's own
	// context bounds it. Must not be negative.
	Timeout time.Duration
	// Headers writes the rate-limit header fields; the zero value writes
	// the IETF RateLimit and RateLimit-Policy fields.
	Headers headers.Writer
	// DenyHandler writes the response to a denied request; nil means
	// DefaultDenyHandler.
	DenyHandler Handler
	// ErrorHandler writes the response when the limiter fails and
	// FailClosed is set; nil means DefaultErrorHandler.
	ErrorHandler Handler
	// OnDecision, if set, is called once for every request the middleware
	// sees (see Event).
	OnDecision func(Event)
	// UnclassifiedHandler writes the response to a request that could not
	// be classified (no key, invalid cost, no limiter); nil means
	// DefaultUnclassifiedHandler.
	UnclassifiedHandler Handler
	// PassUnclassified lets a request that could not be classified pass,
	// uncounted, instead of answering it.
	PassUnclassified bool

	// errs are the mistakes options found (a nil function), reported by
	// the adapters' New.
	errs []error
}

// Err reports the first mistake an option found in its arguments, such as
// WithKeyFunc(nil), wrapping core.ErrInvalidConfig; nil if none. The
// adapters' New functions return it.
func (c *Config) Err() error {
	if len(c.errs) == 0 {
		return nil
	}
	return c.errs[0]
}

// nilArg records that option was given a nil function.
func (c *Config) nilArg(option string) {
	c.errs = append(c.errs, fmt.Errorf("%w: %s(nil): a nil function is a mistake, leave the option out to get the default", core.ErrInvalidConfig, option))
}

// Option sets one field of a Config. An option given a nil function makes
// the adapter's New fail: a KeyFunc that is nil because an error was
// ignored must not turn into a silent default.
type Option func(*Config)

// LimiterFunc chooses the limiter for a request, for example by the plan of
// the API key that key holds: free clients on a 100/min limiter, paying ones
// on 1000/min. Returning nil, nil uses Config.Limiter. Returning
// keyfuncs.ErrSkip lets the request pass unlimited; any other error is
// handled like a store error (fail open or closed).
//
// Limiters may share one store. Policies with the same Name, Window and
// Algorithm share their counts, so name tier policies alike (say
// "per-minute") if a client's usage should follow it across an upgrade.
type LimiterFunc func(r keyfuncs.Request, key string) (*core.Limiter, error)

// CostFunc returns the weight of a request in units of the policies' limits,
// e.g. 10 for an export endpoint. The cost must be at least 1 and at most
// the smallest limit; otherwise the request cannot be classified: it is
// answered 400 and reported with Outcome UnclassifiedRejected and
// core.ErrInvalidCost (see WithPassUnclassified).
type CostFunc func(r keyfuncs.Request) int64

// WithLimiter sets the default limiter (the adapters' New functions take
// it as their first argument, so this is rarely needed).
func WithLimiter(l *core.Limiter) Option { return func(c *Config) { c.Limiter = l } }

// WithLimiterFunc chooses the limiter per request (tiered plans). See
// LimiterFunc. A request for which it returns nil, nil while no default
// limiter is set cannot be classified (ErrNoLimiter).
func WithLimiterFunc(f LimiterFunc) Option {
	return func(c *Config) {
		if f == nil {
			c.nilArg("WithLimiterFunc")
		}
		c.LimiterFunc = f
	}
}

// WithKeyFunc sets how the key is derived (default keyfuncs.RemoteIP).
func WithKeyFunc(f keyfuncs.KeyFunc) Option {
	return func(c *Config) {
		if f == nil {
			c.nilArg("WithKeyFunc")
		}
		c.KeyFunc = f
	}
}

// WithCost sets the cost of each request (weighted requests).
func WithCost(f CostFunc) Option {
	return func(c *Config) {
		if f == nil {
			c.nilArg("WithCost")
		}
		c.CostFunc = f
	}
}

// WithSkip exempts the requests for which skip returns true: they pass
// without being counted, and are reported with Outcome Skipped.
func WithSkip(skip func(r keyfuncs.Request) bool) Option {
	return func(c *Config) {
		if skip == nil {
			c.nilArg("WithSkip")
		}
		c.Skip = skip
	}
}

// WithObserveOnly switches enforcement off (on == true) or on. In
// observe-only mode every request is counted, the headers are written (a
// client past its quota sees remaining 0), and a request enforcement would
// deny is passed on and reported with Outcome WouldDeny. Use it to roll out
// a new limit safely.
func WithObserveOnly(on bool) Option { return func(c *Config) { c.ObserveOnly = on } }

// WithObserveOnlyFunc makes observe-only a per-request choice, to switch
// enforcement on tenant by tenant: return true to observe, false to
// enforce.
func WithObserveOnlyFunc(f func(r keyfuncs.Request) bool) Option {
	return func(c *Config) {
		if f == nil {
			c.nilArg("WithObserveOnlyFunc")
		}
		c.ObserveOnlyFunc = f
	}
}

// WithFailOpen lets requests pass when the limiter fails (the default).
// The error is reported with Outcome StoreErrorPassed.
func WithFailOpen() Option { return func(c *Config) { c.FailClosed = false } }

// WithFailClosed answers 503 Service Unavailable when the limiter fails,
// with the JSON body {"error":"rate_limiter_unavailable","message":"..."}
// (see WithErrorHandler to change it). Observe-only requests still pass.
func WithFailClosed() Option { return func(c *Config) { c.FailClosed = true } }

// WithTimeout bounds every store call to d, on top of the request's own
// context. A call that runs out of time is a store error (fail open or
// closed). Zero means no extra bound. The bound is the context's deadline,
// which the store must honour (the memory and Redis stores do).
func WithTimeout(d time.Duration) Option { return func(c *Config) { c.Timeout = d } }

// WithHeaders sets how the rate-limit header fields are written (mode,
// every policy or only the binding one, ...). Retry-After is written on
// every denial whatever the mode.
func WithHeaders(w headers.Writer) Option { return func(c *Config) { c.Headers = w } }

// WithDenyHandler replaces the response to a denied request. The
// middleware has already written the rate-limit headers and Retry-After;
// the handler writes the status and body.
func WithDenyHandler(h Handler) Option {
	return func(c *Config) {
		if h == nil {
			c.nilArg("WithDenyHandler")
		}
		c.DenyHandler = h
	}
}

// WithErrorHandler replaces the fail-closed response (default: 503 and a
// JSON body).
func WithErrorHandler(h Handler) Option {
	return func(c *Config) {
		if h == nil {
			c.nilArg("WithErrorHandler")
		}
		c.ErrorHandler = h
	}
}

// WithOnDecision sets a hook called synchronously, once per request, with
// everything the middleware decided: before the next handler runs, or
// after the deny or error response was written. Keep it fast; it is on the
// request path. When no hook is set no Event is built.
func WithOnDecision(f func(Event)) Option {
	return func(c *Config) {
		if f == nil {
			c.nilArg("WithOnDecision")
		}
		c.OnDecision = f
	}
}

// WithUnclassifiedHandler replaces the response to a request the limiter
// cannot classify (default: 400 and a JSON body, see
// DefaultUnclassifiedHandler).
func WithUnclassifiedHandler(h Handler) Option {
	return func(c *Config) {
		if h == nil {
			c.nilArg("WithUnclassifiedHandler")
		}
		c.UnclassifiedHandler = h
	}
}

// WithPassUnclassified lets a request the limiter cannot classify pass on,
// uncounted, and reports it with Outcome UnclassifiedPassed. By default
// such a request is answered 400 (Outcome UnclassifiedRejected): a request
// with no key (say, Header("X-API-Key", nil) and no API key) or a cost
// above the limit is not a store outage, and fail-open must not wave it
// through. Use this only when every route has another line of defence.
func WithPassUnclassified() Option { return func(c *Config) { c.PassUnclassified = true } }

// Apply returns a Config with every option applied in order to a zero
// Config, nil options ignored. Adapters call it; callers rarely need to.
func Apply(opts ...Option) Config {
	var c Config
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return c
}
