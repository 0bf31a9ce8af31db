package middleware

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/headerfmt"
	"github.com/ratewindow/ratewindow/internal/keybound"
	"github.com/ratewindow/ratewindow/internal/options"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

// Handle runs the flow for one request. It returns true when the adapter
// must call the next handler, and false when the response has been written
// (denied, or failed closed) and the chain must stop.
func (f *Flow) Handle(x Exchange) bool {
	if f.skip != nil && f.skip(x) {
		return f.skipped(x, "")
	}
	var (
		key string
		res options.Resolved
		err error
	)
	if f.resolve == nil {
		key, err = f.key(x)
	} else {
		key, err = f.resolveKey(x, &res)
	}
	// obs is the resolver's mode, when the flow asked for it (see
	// options.Need).
	obs := res.ObserveOnly && f.need.Mode
	if err != nil {
		if errors.Is(err, keyfuncs.ErrSkip) {
			return f.skipped(x, "")
		}
		if errors.Is(err, keyfuncs.ErrNoKey) {
			return f.unclassified(x, "", 0, err, obs)
		}
		if cancelled(x) {
			return f.unpassable(x, "", err, obs)
		}
		return f.failed(x, "", 0, err, 0, obs)
	}
	if key == "" {
		return f.unclassified(x, "", 0, errEmptyKey, obs)
	}
	l := f.limiter
	chosen, err := res.Limiter, res.LimiterErr
	if f.limiterFunc != nil {
		chosen, err = f.limiterFunc(x, key)
	}
	if err != nil {
		if errors.Is(err, keyfuncs.ErrSkip) {
			return f.skipped(x, key)
		}
		if errors.Is(err, ErrRefused) {
			return f.unpassable(x, key, err, obs)
		}
		if errors.Is(err, ratewindow.ErrNoLimiter) || errors.Is(err, keyfuncs.ErrNoKey) {
			return f.unclassified(x, key, 0, err, obs)
		}
		if cancelled(x) {
			return f.unpassable(x, key, err, obs)
		}
		return f.failed(x, key, 0, err, 0, obs)
	}
	if chosen != nil {
		l = chosen
	}
	if l == nil {
		return f.unclassified(x, key, 0, ratewindow.ErrNoLimiter, obs)
	}
	if l.Policies() == nil {
		return f.unclassified(x, key, 0, errUnbuilt, obs)
	}
	cost := int64(1)
	if f.cost != nil {
		cost = f.cost(x)
	}
	if cost < 1 {
		return f.unclassified(x, key, cost, fmt.Errorf("%w: cost must be at least 1, got %d", core.ErrInvalidCost, cost), obs)
	}

	var start time.Time
	if f.hook != nil {
		start = time.Now()
	}
	// The one store call of the flow, under the configured timeout if
	// any. Circuit breaking, local fallback and the deny cache live below
	// it, in the store (core/resilient), so every framework and any direct
	// Limiter user get them alike. Called here rather than in a helper: a
	// Decision is over 200 bytes, and each function it is returned through
	// copies it.
	var d core.Decision
	var bound time.Time // when the WithTimeout budget ends, if any
	if f.timeout <= 0 {
		d, err = l.AllowN(x.Context(), key, cost)
	} else {
		d, bound, err = allowWithin(x.Context(), f.timeout, l, key, cost)
	}
	if err != nil && cancelled(x) {
		d, err = allowDetached(x.Context(), bound, l, key, cost)
	}
	var latency time.Duration
	if f.hook != nil {
		latency = time.Since(start)
	}
	if err != nil {
		if errors.Is(err, core.ErrInvalidCost) {
			return f.unclassified(x, key, cost, err, obs)
		}
		return f.failed(x, key, cost, err, latency, obs)
	}

	observe := f.observeOnly(x, obs)
	f.writeHeaders(x, &d, key, l)
	if d.Fallback && f.fails != nil {
		f.logFallback(x, &d, cost, observe)
	}
	if d.Allowed || observe {
		if f.hook != nil {
			f.report(x, key, cost, &d, observe, latency)
		}
		return true
	}
	f.denied(x, key, cost, &d, latency)
	return false
}

// resolveKey asks the resolver about a request, once, and fills res
// with what it found; it returns the request's key: the resolver's,
// bounded as a user's key func's keys are, or the key func's when one
// replaces it.
func (f *Flow) resolveKey(x Exchange, res *options.Resolved) (string, error) {
	var err error
	if *res, err = f.resolve(x, f.need); err != nil {
		return "", err
	}
	if f.need.Key {
		return keybound.Bound(res.Key, keybound.MaxLen), nil
	}
	return f.key(x)
}

// errUnbuilt is the error of a request whose limiter func chose a limiter
// that core.NewLimiter did not make: it has no policies to decide with.
var errUnbuilt = fmt.Errorf("%w: %w: the limiter was not made by core.NewLimiter", ratewindow.ErrNoLimiter, core.ErrInvalidConfig)

// ErrRefused marks a limiter func's error for a request whose chosen
// limiter the adapter refuses (fibermw in a Prefork child): the request is
// unclassified, but not passed by WithPassUnclassified, which is for
// requests that have no key or no limiter.
var ErrRefused = errors.New("middleware: limiter refused")

// errEmptyKey is the error of a key func that returned "" and no error: it
// found no key (say, the value of a header the client left out). The
// limiter would refuse the empty key with core.ErrEmptyKey, a failure the
// fail-open rule would wave through unlimited.
var errEmptyKey = fmt.Errorf("%w: the key func returned an empty key (%w)", keyfuncs.ErrNoKey, core.ErrEmptyKey)

// allowWithin is kept apart so the derived context is only built when a
// timeout is configured. It returns the deadline it gave the call too.
func allowWithin(ctx context.Context, d time.Duration, l *core.Limiter, key string, cost int64) (core.Decision, time.Time, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	bound, _ := ctx.Deadline()
	dec, err := l.AllowN(ctx, key, cost)
	return dec, bound, err
}

// cancelled reports whether the request's context was cancelled: its
// client hung up, or only half-closed the connection, which net/http
// reports alike while it still writes the answer.
//
// A store that honours the context gives up on such a request, uncharged,
// and a key func or limiter func may too. None of that is a store outage,
// and fail-open must not pass the request: a client could skip its limit
// by half-closing as it sends, and read the answer. The store is asked
// again, detached from the cancellation (allowDetached), so the request
// gets a real decision; a key func or limiter func that gave up leaves
// the request unclassified.
func cancelled(x Exchange) bool { return errors.Is(x.Context().Err(), context.Canceled) }

// allowDetached asks l again for a request whose context was cancelled,
// on a context that keeps its values and deadline but not its
// cancellation, and ends at bound, the end of the first call's WithTimeout
// budget, if that is set and sooner: the request waits for the store as
// long as any other would (WithTimeout, the request's deadline, the
// store's own timeouts), the two calls together, not each. A call that
// was cancelled after the store charged it is charged twice: a client that
// hangs up mid-call may lose one unit, but never gets one free.
func allowDetached(ctx context.Context, bound time.Time, l *core.Limiter, key string, cost int64) (core.Decision, error) {
	detached := context.WithoutCancel(ctx)
	deadline, ok := ctx.Deadline()
	if !bound.IsZero() && (!ok || bound.Before(deadline)) {
		deadline, ok = bound, true
	}
	if ok {
		var cancel context.CancelFunc
		detached, cancel = context.WithDeadline(detached, deadline)
		defer cancel()
	}
	return l.AllowN(detached, key, cost)
}

// writeHeaders writes the rate-limit fields of d, as bytes to an exchange
// that takes them.
func (f *Flow) writeHeaders(x Exchange, d *core.Decision, key string, l *core.Limiter) {
	if bx, ok := x.(BytesExchange); ok {
		f.headers.Write(x.SetHeader, bx.SetHeaderBytes, d, key, f.now(l))
		return
	}
	f.headers.Write(x.SetHeader, nil, d, key, f.now(l))
}

// now is the time the header writer needs: only the legacy epoch form
// reads it, so the clock is not consulted otherwise.
func (f *Flow) now(l *core.Limiter) time.Time {
	if f.headers.Mode == headerfmt.Legacy && f.headers.LegacyEpoch {
		return l.Clock().Now()
	}
	return time.Time{}
}

// observeOnly reports whether the request is observed, not enforced:
// WithObserveOnly, the resolver's mode obs (false when there is none),
// or the observe-only func, asked only when the others say no.
func (f *Flow) observeOnly(x Exchange, obs bool) bool {
	return f.observe || obs || (f.observeFunc != nil && f.observeFunc(x))
}

// event starts the Event of a request.
func event(x Exchange, o ratewindow.Outcome, key string, cost int64) ratewindow.Event {
	return ratewindow.Event{
		Outcome: o,
		Key:     key,
		Route:   x.Route(),
		Method:  x.Method(),
		Path:    x.Path(),
		Cost:    cost,
	}
}

func (f *Flow) skipped(x Exchange, key string) bool {
	if f.hook != nil {
		f.hook(event(x, ratewindow.Skipped, key, 0))
	}
	return true
}

// report tells the hook about a request that passes with a decision.
func (f *Flow) report(x Exchange, key string, cost int64, d *core.Decision, observe bool, latency time.Duration) {
	ev := event(x, ratewindow.Allowed, key, cost)
	if !d.Allowed {
		ev.Outcome = ratewindow.WouldDeny
		ev.WouldDeny = true
	}
	ev.Decision = *d
	ev.ObserveOnly = observe
	ev.Latency = latency
	f.hook(ev)
}

// noStore is the Cache-Control of every response the middleware stops a
// request with, set before its handler runs (which may set its own). Such
// a response is about one client at one moment: a shared cache that kept
// it, because an earlier middleware marked every response cacheable,
// would turn one client's 429 into every client's.
const noStore = "no-store"

// denied writes Retry-After and the deny response, then reports.
func (f *Flow) denied(x Exchange, key string, cost int64, d *core.Decision, latency time.Duration) {
	ev := event(x, ratewindow.Denied, key, cost)
	ev.Decision = *d
	ev.WouldDeny = true
	ev.Latency = latency
	headerfmt.WriteRetryAfter(x.SetHeader, d)
	x.SetHeader("Cache-Control", noStore)
	f.deny(x, x, ev)
	if f.hook != nil {
		f.hook(ev)
	}
}

// logFallback writes to the default log, with no hook, a decision that
// core/resilient's local fallback made: the store failed its call (or its
// breaker was open), and that must not go unnoticed (see failLogs).
func (f *Flow) logFallback(x Exchange, d *core.Decision, cost int64, observe bool) {
	o := ratewindow.Allowed
	switch {
	case d.Allowed:
	case observe:
		o = ratewindow.WouldDeny
	default:
		o = ratewindow.Denied
	}
	f.fails.fallback[o].logDecision(x, o, d, cost)
}

// failed applies the fail policy to a limiter failure. Observe-only
// requests always pass. With no hook, the failure is logged to
// slog.Default() (see failLogs): a store that fails must not go unnoticed.
func (f *Flow) failed(x Exchange, key string, cost int64, err error, latency time.Duration, obs bool) bool {
	observe := f.observeOnly(x, obs)
	if !f.failClosed || observe {
		if f.hook != nil {
			ev := event(x, ratewindow.StoreErrorPassed, key, cost)
			ev.Err, ev.FailedOpen, ev.ObserveOnly, ev.Latency = err, true, observe, latency
			f.hook(ev)
		} else {
			f.fails.passed.log(x, ratewindow.StoreErrorPassed, err, observe)
		}
		return true
	}
	ev := event(x, ratewindow.StoreErrorRejected, key, cost)
	ev.Err, ev.Latency = err, latency
	x.SetHeader("Cache-Control", noStore)
	f.onError(x, x, ev)
	if f.hook != nil {
		f.hook(ev)
	} else {
		f.fails.rejected.log(x, ratewindow.StoreErrorRejected, err, false)
	}
	return false
}

// unclassified handles a request the limiter cannot classify: no key, an
// invalid cost, no limiter. It is not a limiter failure, so the fail policy
// does not apply: it is answered (by default 400) unless the user chose to
// pass such requests, or the request is observe-only.
func (f *Flow) unclassified(x Exchange, key string, cost int64, err error, obs bool) bool {
	return f.unclassifiedOr(x, key, cost, err, f.passUnclass, obs)
}

// unpassable handles a request that is unclassified but not passed by
// WithPassUnclassified, which is for requests that have no key or no
// limiter. Two have them: one whose key func or limiter func failed after
// its client cancelled it (see cancelled), which passed could skip its
// limit by half-closing as it sends; and one whose chosen limiter the
// adapter refuses (ErrRefused). Observe-only requests still pass.
func (f *Flow) unpassable(x Exchange, key string, err error, obs bool) bool {
	return f.unclassifiedOr(x, key, 0, err, false, obs)
}

// unclassifiedOr is unclassified, passing the request when pass is set.
func (f *Flow) unclassifiedOr(x Exchange, key string, cost int64, err error, pass, obs bool) bool {
	observe := f.observeOnly(x, obs)
	if pass || observe {
		if f.hook != nil {
			ev := event(x, ratewindow.UnclassifiedPassed, key, cost)
			ev.Err, ev.ObserveOnly = err, observe
			f.hook(ev)
		} else if f.misconfigured(err) {
			f.fails.passed.log(x, ratewindow.UnclassifiedPassed, err, observe)
		}
		return true
	}
	ev := event(x, ratewindow.UnclassifiedRejected, key, cost)
	ev.Err = err
	x.SetHeader("Cache-Control", noStore)
	f.unclass(x, x, ev)
	if f.hook != nil {
		f.hook(ev)
	} else if f.misconfigured(err) {
		f.fails.rejected.log(x, ratewindow.UnclassifiedRejected, err, false)
	}
	return false
}

// misconfigured reports whether err, why a request is unclassified, is a
// mistake in the middleware's set-up rather than in the request: the flow
// is unusable (see Unusable), the adapter refused the limiter chosen for
// the request (ErrRefused), or err wraps core.ErrInvalidConfig (a key func
// misconfigured, a limiter NewLimiter did not make). With no hook such
// requests are logged as limiter failures are (see failLogs): a mistake
// that answers every request 503 or 400 must not go unnoticed. A request
// with no key, or one its limiter func gave no limiter, is the request's
// own case, and is not logged.
func (f *Flow) misconfigured(err error) bool {
	return f.unusable || errors.Is(err, ErrRefused) || errors.Is(err, core.ErrInvalidConfig)
}
