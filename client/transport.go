package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"reflect"
	"time"

	"github.com/ratewindow/ratewindow/core"
)

// transport is the http.RoundTripper New returns.
type transport struct {
	base   http.RoundTripper
	cfg    config
	states states
}

// New returns an http.RoundTripper that honours a server's rate limits,
// sending through base (http.DefaultTransport when nil). It is safe for
// concurrent use, and starts no goroutine of its own: every wait happens
// in the goroutine that sent the request. http.Client.CloseIdleConnections
// reaches base through it. Nil options are skipped. An invalid option, or
// a base that holds a nil pointer or func (a *http.Transport variable
// never set), is an error wrapping core.ErrInvalidConfig.
func New(base http.RoundTripper, opts ...Option) (http.RoundTripper, error) {
	switch {
	case base == nil:
		base = http.DefaultTransport
	case unsetBase(base):
		// Not the default: a transport the caller meant to configure
		// and did not build. Every request through it would panic.
		return nil, fmt.Errorf("%w: client: New: base is a nil %T", core.ErrInvalidConfig, base)
	}
	t := &transport{base: base, cfg: defaults()}
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o(&t.cfg); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// unsetBase reports whether base holds a nil pointer or a nil func: a
// transport never built, whose first request would panic. A nil map or
// slice is not one: its methods read it as empty, and may well work.
func unsetBase(base http.RoundTripper) bool {
	switch v := reflect.ValueOf(base); v.Kind() {
	case reflect.Pointer, reflect.Func:
		return v.IsNil()
	}
	return false
}

// CloseIdleConnections closes the idle keep-alive connections of the base
// round tripper, if it has a CloseIdleConnections method (as
// *http.Transport does), so that http.Client.CloseIdleConnections reaches
// it through this one.
func (t *transport) CloseIdleConnections() {
	if c, ok := t.base.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// RoundTrip sends req, first waiting as long as the server asked (when
// pacing), and retries it after a 429 or 503 within the retry budget. It
// returns the last response when it stops retrying, so the caller sees
// the server's own answer.
func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL == nil {
		// As http.Transport refuses it; the key could not be read.
		closeBody(req)
		return nil, errors.New("client: request has a nil URL")
	}
	ctx := req.Context()
	start := t.cfg.now()
	st := t.states.get(t.cfg.key(req), start)
	defer func() { st.release(t.cfg.now()) }()
	var probe chan struct{}
	if t.cfg.pace {
		var err error
		if probe, err = t.pace(ctx, st, start); err != nil {
			closeBody(req)
			return nil, err
		}
	}
	reads := st.sent()
	resp, err := t.send(st, probe, req)
	for attempt := 0; ; attempt++ {
		if err == nil && resp == nil {
			// A base that breaks the RoundTripper contract: an error,
			// as http.Client makes of it, not a panic.
			err = fmt.Errorf("client: %T returned a nil response and a nil error", t.base)
		}
		if err != nil {
			st.failed(probe)
			return nil, err
		}
		now := t.cfg.now()
		limited := resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable
		q, hasQuota := parseQuota(resp.Header, now, limited)
		// How long the server asks to wait, on a refusal. A block is in
		// place before the requests holding for a probe are let go.
		var wait time.Duration
		if limited {
			var told bool
			switch wait, told = parseRetryAfter(resp.Header, now); {
			case told:
				// One longer than MaxWait is waited for by no
				// request: remembered, it would only send every
				// later one unpaced until it ended.
				if wait <= t.cfg.maxWait {
					st.block(now, wait)
					// Retry-After takes precedence over a
					// later reset in the same response (as
					// the drafts require of a client).
					q.reset = min(q.reset, wait)
				}
			case hasQuota && q.remaining == 0 && q.reset > 0:
				wait = q.reset
			default:
				// Nothing says when: the key backs off.
				wait = st.backOff(now, t.cfg.maxWait)
			}
		}
		// Likewise a used-up quota whose reset is longer than MaxWait:
		// no request would wait for it, and, remembered, it would
		// outlast the answers that cross it on the way back (those only
		// lower the count), leaving the key unpaced.
		absurd := hasQuota && q.remaining == 0 && q.reset > t.cfg.maxWait
		st.done(q, hasQuota && !absurd, now, reads, probe, limited)
		probe = nil
		if !limited {
			return resp, nil
		}
		if attempt >= t.cfg.maxRetries || !t.replayable(req) {
			return resp, nil
		}
		asked := wait
		wait = t.jitter(wait)
		if !t.fits(ctx, asked, wait, t.cfg.maxWait) {
			return resp, nil
		}
		next, rerr := rewind(req)
		if rerr != nil {
			return resp, nil
		}
		// The drain is part of the wait: the retry goes out no later
		// than if it had taken no time.
		drained := t.cfg.now()
		drain(resp, drainLimit(ctx))
		wait -= t.cfg.now().Sub(drained)
		if err := t.cfg.sleep(ctx, max(wait, 0)); err != nil {
			closeBody(next)
			return nil, err
		}
		if t.cfg.pace {
			if probe, err = t.pace(ctx, st, t.cfg.now()); err != nil {
				closeBody(next)
				return nil, err
			}
		}
		reads = st.sent()
		resp, err = t.send(st, probe, next)
	}
}

// send hands req, counted as sent with st (as the probe, when probe is
// not nil), to the base RoundTripper. Should the base panic, the panic
// goes on up as it came, and the request is counted as one that got no
// response: still counted in flight, it would take a unit off every quota
// the key is told from then on, and the probe's place would stay taken
// until the probe went overdue.
func (t *transport) send(st *state, probe chan struct{}, req *http.Request) (*http.Response, error) {
	returned := false
	defer func() {
		if !returned {
			st.failed(probe)
		}
	}()
	resp, err := t.base.RoundTrip(req)
	returned = true
	return resp, err
}

// pace waits until st has quota for one more request, asking first at
// now. A wait that does not fit (past the context's deadline, or ending
// more than MaxWait after now) is skipped: the request goes out and the
// server answers for itself. MaxWait bounds the waits in all, not each
// one: while a request waits, the others with its key may take what the
// reset brings, round after round, and it would otherwise wait for ever.
// A hold for a probe is not started once MaxWait has passed either, and
// lasts at most its own bound (see hold). It returns the probe when the
// request is to go ahead of the others with its key. A request whose
// context is done is not to be sent: it gets the context's error, and
// takes neither a unit of the quota nor the probe's place.
func (t *transport) pace(ctx context.Context, st *state, now time.Time) (chan struct{}, error) {
	end := now.Add(t.cfg.maxWait)
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		tk := st.reserve(now, t.cfg.probeWait)
		left := end.Sub(now)
		switch {
		case tk.probe != nil:
			return tk.probe, nil
		case tk.hold != nil:
			if left <= 0 {
				return nil, nil
			}
			again, err := t.hold(ctx, tk)
			if err != nil || !again {
				return nil, err
			}
		case tk.wait <= 0:
			return nil, nil
		default:
			// What the server asked for: the wait, less the margin
			// added to a reset.
			asked := tk.wait - resetMargin
			wait := t.jitter(tk.wait)
			if !t.fits(ctx, asked, wait, left) {
				return nil, nil
			}
			if err := t.cfg.sleep(ctx, wait); err != nil {
				return nil, err
			}
		}
		now = t.cfg.now()
	}
}

// hold waits for the answer to the probe of tk, at most until the probe
// is overdue, MaxWait, or half the time left before the context's
// deadline, whichever comes first. It reports whether to ask again (the
// probe was answered, or is overdue: reserve then sends one request in its
// place, and the others hold for that one) rather than send at once.
func (t *transport) hold(ctx context.Context, tk ticket) (bool, error) {
	d := time.Until(tk.until)
	if d <= 0 {
		return true, nil
	}
	overdue := true // what the timer means when it fires
	if t.cfg.maxWait < d {
		d, overdue = t.cfg.maxWait, false
	}
	if dl, ok := ctx.Deadline(); ok {
		if half := time.Until(dl) / 2; half < d {
			d, overdue = half, false
		}
		if d <= 0 {
			return false, nil
		}
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-tk.hold:
		return true, nil
	case <-timer.C:
		return overdue, nil
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

// fits reports whether a wait is allowed: asked not longer than allowed
// (MaxWait, or what is left of it), and, stretched by the jitter, ending
// before the context's deadline. MaxWait bounds what the server asked for
// (a Retry-After or a reset of exactly MaxWait is waited for); the
// deadline bounds the wait as made.
func (t *transport) fits(ctx context.Context, asked, made, allowed time.Duration) bool {
	if asked > allowed {
		return false
	}
	if dl, ok := ctx.Deadline(); ok && time.Now().Add(made).After(dl) {
		return false
	}
	return true
}

// jitter adds a random share of up to the configured fraction to d.
func (t *transport) jitter(d time.Duration) time.Duration {
	if t.cfg.jitter == 0 || d <= 0 {
		return d
	}
	if span := int64(float64(d) * t.cfg.jitter); span > 0 {
		extra := time.Duration(rand.Int64N(span + 1))
		if d > math.MaxInt64-extra {
			// A wait of centuries: saturate rather than wrap to a
			// negative wait, which would not be waited at all.
			return math.MaxInt64
		}
		d += extra
	}
	return d
}

// replayable reports whether req may be sent again: its body can be
// recreated, and its method is idempotent (or the caller allowed others).
func (t *transport) replayable(req *http.Request) bool {
	if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
		return false
	}
	return t.cfg.nonIdempotent || idempotent(req)
}

// idempotent follows net/http's own rule for retrying requests.
func idempotent(req *http.Request) bool {
	switch req.Method {
	case "", http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace, http.MethodPut, http.MethodDelete:
		return true
	}
	_, key := req.Header["Idempotency-Key"]
	_, xkey := req.Header["X-Idempotency-Key"]
	return key || xkey
}

// rewind returns a copy of req with a fresh body, ready to send again.
func rewind(req *http.Request) (*http.Request, error) {
	next := req.Clone(req.Context())
	if req.Body == nil || req.Body == http.NoBody {
		return next, nil
	}
	if req.GetBody == nil {
		return nil, errors.New("client: request body cannot be replayed")
	}
	body, err := req.GetBody()
	if err != nil {
		return nil, err
	}
	next.Body = body
	return next, nil
}

// A response that will not be returned is read to its end, so its
// connection can be reused, only when that is quick: a body of at most
// drainBytes that arrives within drainTime. A larger or slower one is
// closed instead, which costs its connection and nothing else; a server
// sending its refusal a byte at a time cannot hold the retry back.
const (
	drainBytes = 64 << 10
	drainTime  = 100 * time.Millisecond
)

// drainLimit is how long a drain may take: drainTime, or less when the
// context's deadline is nearer.
func drainLimit(ctx context.Context) time.Duration {
	if dl, ok := ctx.Deadline(); ok {
		return min(drainTime, time.Until(dl))
	}
	return drainTime
}

// drain reads what is left of a response that will not be returned, at
// most drainBytes and for at most limit, and closes it. A body still
// arriving when limit passes is closed by a timer, which ends the read (as
// it does for net/http's bodies). A base RoundTripper may leave Body nil
// for an empty body (http.Client tolerates it).
func drain(resp *http.Response, limit time.Duration) {
	if resp.Body == nil {
		return
	}
	if limit <= 0 || resp.ContentLength > drainBytes {
		_ = resp.Body.Close()
		return
	}
	stalled := time.AfterFunc(limit, func() { _ = resp.Body.Close() })
	_, _ = io.CopyN(io.Discard, resp.Body, drainBytes)
	if stalled.Stop() {
		_ = resp.Body.Close()
	}
}

// closeBody closes a request body that will not be sent, as RoundTrip
// must.
func closeBody(req *http.Request) {
	if req.Body != nil {
		_ = req.Body.Close()
	}
}

// sleep waits d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
