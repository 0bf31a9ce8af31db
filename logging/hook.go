package logging

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/keyhash"
)

// The messages of the records Hook writes.
const (
	msgFailedPassed   = "ratewindow: limiter failed, request passed"
	msgFailedRejected = "ratewindow: limiter failed, request rejected"
	msgWouldDeny      = "ratewindow: request would be denied (observe-only)"
	msgDenied         = "ratewindow: request denied"
	msgFallback       = "ratewindow: store failed, request decided by the local fallback"

	msgUnclassifiedPassed   = "ratewindow: request could not be classified, passed uncounted"
	msgUnclassifiedRejected = "ratewindow: request could not be classified, rejected"
)

type hook struct {
	logger  *slog.Logger
	keys    keyMode
	secret  []byte
	denials bool

	passed, rejected   stream // store failures
	unclassP, unclassR stream // unclassified requests
	misconfR           stream // unclassified for a mistake in the set-up, rejected
	wouldDeny, denied  stream // the store's decisions
	// The same decisions made by core/resilient's local fallback, on
	// throttles of their own: during a partial outage a flood of them
	// must not hide the store's, nor one outcome hide the other.
	fbWouldDeny, fbDenied stream
	// Decisions of the fallback not logged as one of those, one stream
	// per outcome: allowed, and denied without WithDenials.
	fbAllowedW, fbDeniedW stream
}

// stream is the records of one outcome: how they look and how often they
// are written.
type stream struct {
	level    slog.Level
	msg      string
	fail     string // "open" or "closed" for a store failure, else ""
	decision bool   // the decision's attributes (would-deny, denied)
	throttle
}

// Hook returns an OnDecision hook that logs to logger (slog.Default() if
// nil) what deserves a line:
//
//   - a limiter failure (store error, timeout) that let the request
//     pass: Warn, with err, route, method, outcome, fail="open",
//     observe_only and latency;
//   - one that answered 503 (fail closed): Error, the same with
//     fail="closed"; during an outage at most one per second for each of
//     the two, the next one counting those held back in "suppressed" (see
//     WithErrorEvery);
//   - in observe-only mode, a request enforcement would have denied: Info,
//     with route, method, policy, limit, remaining, retry_after and cost
//     (and fallback=true when core/resilient's local fallback decided), so
//     a canary rollout can be checked against expectations; at most one
//     per second, the next one counting those held back in "suppressed"
//     (see WithDenialEvery);
//   - with WithDenials, an enforced denial: Info, the same attributes,
//     throttled the same way;
//   - any other decision that core/resilient's local fallback made (an
//     allowed request, or a denial without WithDenials): Warn, the same
//     attributes and fallback=true, throttled like store failures. The
//     fallback turns a failed store call into a decision, not an error:
//     without this record a store that fails behind it, one call in a
//     few or all of them, would leave nothing in the log;
//   - a request the limiter could not classify (no key, invalid cost, no
//     limiter): Warn when it passed uncounted (WithPassUnclassified or
//     observe-only), Info when it was rejected, with err, route, method,
//     outcome, observe_only and cost; a client can send such requests at
//     will, so they are throttled like denials. One rejected for a
//     mistake in the set-up (its err wraps core.ErrInvalidConfig: a key
//     func misconfigured, a Limit form given a limiter it cannot use, a
//     limiter Fiber refuses in a Prefork child) is no client's doing and
//     stops every such request: Error, throttled like store failures.
//
// Each outcome has a throttle of its own, and so do the fallback's
// decisions apart from the store's (its allowed ones apart from its
// denials): a flood of one never holds back the only record of another,
// and the records of each, with their "suppressed" counts, add up to its
// requests.
//
// A record held back is never lost from the count: the next record of
// its outcome carries it, or, if none comes before the interval ends, the
// first record held back is written then with the count of the others
// (late by at most an interval, and with the time of writing). A
// timer does that: it is armed at most once per interval while records
// are held back, runs no goroutine while it waits, and stops re-arming
// once it has written what was held back. A Hook that is no longer used
// needs no Close: it is garbage within an interval or two.
//
// Skipped requests, and allowed ones but the fallback's, are not logged.
// Records carry the key as a keyed hash by default (see WithRawKeys),
// never the raw key or the path.
// The method, the one text a client chooses freely (net/http takes a
// method of up to a megabyte), is cut to its first 32 bytes and "…".
// Give it to WithOnDecision along with other hooks.
func Hook(logger *slog.Logger, opts ...Option) func(ratewindow.Event) {
	return newHook(logger, opts...).log
}

// newHook builds the hook Hook returns the log method of.
func newHook(logger *slog.Logger, opts ...Option) *hook {
	cfg := config{clock: wallClock{}, errorEvery: defaultErrorEvery, denialEvery: defaultDenialEvery}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	if logger == nil {
		logger = slog.Default()
	}
	if cfg.keys == keyHashed && len(cfg.secret) == 0 {
		cfg.secret = keyhash.NewSecret()
	}
	h := &hook{logger: logger, keys: cfg.keys, secret: cfg.secret, denials: cfg.denials}
	after, _ := cfg.clock.(afterFuncer)
	set := func(s *stream, level slog.Level, msg, fail string, decision bool, every time.Duration) {
		*s = stream{level: level, msg: msg, fail: fail, decision: decision}
		s.every, s.clock, s.after = every, cfg.clock, after
		s.flush = func() {
			if ev, n, ok := s.release(); ok {
				h.write(&ev, s, n)
			}
		}
	}
	set(&h.passed, slog.LevelWarn, msgFailedPassed, "open", false, cfg.errorEvery)
	set(&h.rejected, slog.LevelError, msgFailedRejected, "closed", false, cfg.errorEvery)
	set(&h.unclassP, slog.LevelWarn, msgUnclassifiedPassed, "", false, cfg.denialEvery)
	set(&h.unclassR, slog.LevelInfo, msgUnclassifiedRejected, "", false, cfg.denialEvery)
	set(&h.misconfR, slog.LevelError, msgUnclassifiedRejected, "", false, cfg.errorEvery)
	set(&h.wouldDeny, slog.LevelInfo, msgWouldDeny, "", true, cfg.denialEvery)
	set(&h.denied, slog.LevelInfo, msgDenied, "", true, cfg.denialEvery)
	set(&h.fbWouldDeny, slog.LevelInfo, msgWouldDeny, "", true, cfg.denialEvery)
	set(&h.fbDenied, slog.LevelInfo, msgDenied, "", true, cfg.denialEvery)
	set(&h.fbAllowedW, slog.LevelWarn, msgFallback, "", true, cfg.errorEvery)
	set(&h.fbDeniedW, slog.LevelWarn, msgFallback, "", true, cfg.errorEvery)
	return h
}

// log is the hook. Requests that are not logged cost a switch and return.
func (h *hook) log(ev ratewindow.Event) {
	switch ev.Outcome {
	case ratewindow.StoreErrorPassed:
		h.record(&ev, &h.passed)
	case ratewindow.StoreErrorRejected:
		h.record(&ev, &h.rejected)
	case ratewindow.UnclassifiedPassed:
		h.record(&ev, &h.unclassP)
	case ratewindow.UnclassifiedRejected:
		if errors.Is(ev.Err, core.ErrInvalidConfig) {
			// Not the client's doing: every such request is rejected
			// until the set-up is mended.
			h.record(&ev, &h.misconfR)
		} else {
			h.record(&ev, &h.unclassR)
		}
	case ratewindow.WouldDeny:
		if ev.Decision.Fallback {
			h.record(&ev, &h.fbWouldDeny)
		} else {
			h.record(&ev, &h.wouldDeny)
		}
	case ratewindow.Denied:
		switch {
		case h.denials && ev.Decision.Fallback:
			h.record(&ev, &h.fbDenied)
		case h.denials:
			h.record(&ev, &h.denied)
		case ev.Decision.Fallback:
			h.record(&ev, &h.fbDeniedW)
		}
	case ratewindow.Allowed:
		if ev.Decision.Fallback {
			h.record(&ev, &h.fbAllowedW)
		}
	}
}

// record writes ev to its stream s, unless the logger does not want its
// level or the throttle holds it back.
func (h *hook) record(ev *ratewindow.Event, s *stream) {
	if !h.logger.Enabled(context.Background(), s.level) {
		return
	}
	if ok, suppressed := s.admit(ev); ok {
		h.write(ev, s, suppressed)
	}
}

// write writes the record of ev, with the number of records of its stream
// held back since the previous one.
func (h *hook) write(ev *ratewindow.Event, s *stream, suppressed int64) {
	attrs := make([]slog.Attr, 0, 11)
	if s.decision {
		d := &ev.Decision
		attrs = append(attrs,
			slog.String("outcome", ev.Outcome.String()),
			slog.String("route", ev.Route),
			methodAttr(ev.Method),
			slog.String("policy", d.Policy().Name),
			slog.Int64("limit", d.Limit),
			slog.Int64("remaining", d.Remaining),
			slog.Duration("retry_after", d.RetryAfter),
			slog.Int64("cost", ev.Cost),
		)
		if d.Fallback {
			attrs = append(attrs, slog.Bool("fallback", true))
		}
	} else {
		attrs = append(attrs,
			slog.Any("err", ev.Err),
			slog.String("outcome", ev.Outcome.String()),
			slog.String("route", ev.Route),
			methodAttr(ev.Method),
		)
		if s.fail != "" {
			attrs = append(attrs, slog.String("fail", s.fail), slog.Bool("observe_only", ev.ObserveOnly), slog.Duration("latency", ev.Latency))
		} else {
			attrs = append(attrs, slog.Bool("observe_only", ev.ObserveOnly), slog.Int64("cost", ev.Cost))
		}
	}
	if a, ok := h.keyAttr(ev.Key); ok {
		attrs = append(attrs, a)
	}
	if suppressed > 0 {
		attrs = append(attrs, slog.Int64("suppressed", suppressed))
	}
	h.logger.LogAttrs(context.Background(), s.level, s.msg, attrs...)
}

// maxMethod bounds the bytes of the method a record shows: the standard
// methods are at most 17 bytes long.
const maxMethod = 32

// methodAttr returns the method attribute, the method cut to maxMethod
// bytes and "…" if it is longer.
func methodAttr(m string) slog.Attr {
	if len(m) > maxMethod {
		m = m[:maxMethod] + "…"
	}
	return slog.String("method", m)
}
