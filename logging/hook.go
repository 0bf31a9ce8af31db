package logging

import (
	"context"
	"log/slog"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/internal/keyhash"
)

// The messages of the records Hook writes.
const (
	msgFailedPassed   = "ratewindow: limiter failed, request passed"
	msgFailedRejected = "ratewindow: limiter failed, request rejected"
	msgWouldDeny      = "ratewindow: request would be denied (observe-only)"
	msgDenied         = "ratewindow: request denied"

	msgUnclassifiedPassed   = "ratewindow: request could not be classified, passed uncounted"
	msgUnclassifiedRejected = "ratewindow: request could not be classified, rejected"
)

type hook struct {
	logger    *slog.Logger
	keys      keyMode
	secret    []byte
	denials   bool
	passed    throttle
	rejected  throttle
	unclassP  throttle
	unclassR  throttle
	wouldDeny throttle
	denied    throttle
}

// Hook returns an OnDecision hook that logs to logger (slog.Default() if
// nil) what deserves a line:
//
//   - a limiter failure (store error, timeout) that let the request
//     pass: Warn, with err, route, method, outcome, fail="open",
//     observe_only and latency;
//   - one that answered 503 (fail closed): Error, the same with
//     fail="closed";
//   - in observe-only mode, a request enforcement would have denied: Info,
//     with route, method, policy, limit, remaining, retry_after and cost
//     (and fallback=true when core/resilient's local fallback decided), so
//     a canary rollout can be checked against expectations; at most one
//     per second, the next one counting those held back in "suppressed"
//     (see WithDenialEvery);
//   - with WithDenials, an enforced denial: Info, the same attributes,
//     throttled the same way;
//   - a request the limiter could not classify (no key, invalid cost, no
//     limiter): Warn when it passed uncounted (WithPassUnclassified or
//     observe-only), Info when it was rejected, with err, route, method,
//     outcome, observe_only and cost; a client can send such requests at
//     will, so they are throttled like denials.
//
// Allowed and skipped requests are not logged. Records carry the key as a
// keyed hash by default (see WithRawKeys), never the raw key or the path.
// The method, the one text a client chooses freely (net/http takes a
// method of up to a megabyte), is cut to its first 32 bytes and "…".
// Give it to WithOnDecision along with other hooks.
func Hook(logger *slog.Logger, opts ...Option) func(ratewindow.Event) {
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
	h.passed.every, h.passed.clock = cfg.errorEvery, cfg.clock
	h.rejected.every, h.rejected.clock = cfg.errorEvery, cfg.clock
	h.unclassP.every, h.unclassP.clock = cfg.denialEvery, cfg.clock
	h.unclassR.every, h.unclassR.clock = cfg.denialEvery, cfg.clock
	h.wouldDeny.every, h.wouldDeny.clock = cfg.denialEvery, cfg.clock
	h.denied.every, h.denied.clock = cfg.denialEvery, cfg.clock
	return h.log
}

// log is the hook. Requests that are not logged cost a switch and return.
func (h *hook) log(ev ratewindow.Event) {
	switch ev.Outcome {
	case ratewindow.StoreErrorPassed:
		h.failure(&ev, slog.LevelWarn, msgFailedPassed, "open", &h.passed)
	case ratewindow.StoreErrorRejected:
		h.failure(&ev, slog.LevelError, msgFailedRejected, "closed", &h.rejected)
	case ratewindow.UnclassifiedPassed:
		h.failure(&ev, slog.LevelWarn, msgUnclassifiedPassed, "", &h.unclassP)
	case ratewindow.UnclassifiedRejected:
		h.failure(&ev, slog.LevelInfo, msgUnclassifiedRejected, "", &h.unclassR)
	case ratewindow.WouldDeny:
		h.denial(&ev, msgWouldDeny, &h.wouldDeny)
	case ratewindow.Denied:
		if h.denials {
			h.denial(&ev, msgDenied, &h.denied)
		}
	}
}

func (h *hook) failure(ev *ratewindow.Event, level slog.Level, msg, fail string, t *throttle) {
	ctx := context.Background()
	if !h.logger.Enabled(ctx, level) {
		return
	}
	ok, suppressed := t.admit()
	if !ok {
		return
	}
	attrs := make([]slog.Attr, 0, 10)
	attrs = append(attrs,
		slog.Any("err", ev.Err),
		slog.String("outcome", ev.Outcome.String()),
		slog.String("route", ev.Route),
		methodAttr(ev.Method),
	)
	if fail != "" {
		attrs = append(attrs, slog.String("fail", fail), slog.Bool("observe_only", ev.ObserveOnly), slog.Duration("latency", ev.Latency))
	} else {
		attrs = append(attrs, slog.Bool("observe_only", ev.ObserveOnly), slog.Int64("cost", ev.Cost))
	}
	if a, ok := h.keyAttr(ev.Key); ok {
		attrs = append(attrs, a)
	}
	if suppressed > 0 {
		attrs = append(attrs, slog.Int64("suppressed", suppressed))
	}
	h.logger.LogAttrs(ctx, level, msg, attrs...)
}

func (h *hook) denial(ev *ratewindow.Event, msg string, t *throttle) {
	ctx := context.Background()
	if !h.logger.Enabled(ctx, slog.LevelInfo) {
		return
	}
	ok, suppressed := t.admit()
	if !ok {
		return
	}
	d := &ev.Decision
	attrs := make([]slog.Attr, 0, 11)
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
	if a, ok := h.keyAttr(ev.Key); ok {
		attrs = append(attrs, a)
	}
	if suppressed > 0 {
		attrs = append(attrs, slog.Int64("suppressed", suppressed))
	}
	h.logger.LogAttrs(ctx, slog.LevelInfo, msg, attrs...)
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
