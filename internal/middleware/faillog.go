package middleware

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
)

// The messages of the default records, the same as package logging's.
const (
	msgFailedPassed   = "ratewindow: limiter failed, request passed"
	msgFailedRejected = "ratewindow: limiter failed, request rejected"
	msgFallback       = "ratewindow: store failed, request decided by the local fallback"
)

// failEvery is the interval of the default records: at most one per
// interval for each outcome of a middleware.
const failEvery = time.Second

// maxMethod bounds the bytes of the method a record shows, as package
// logging does: a client chooses the method freely.
const maxMethod = 32

// failLogs is what a middleware with no OnDecision hook does with a
// limiter failure: it writes it to slog.Default(), so that a dead or
// mistyped store is never silent, throttled so that an outage writes one
// record per second for each outcome, not one per request.
//
// Behind core/resilient's local fallback a failed store call is a
// decision (core.Decision's Fallback), not an error: fallback writes those
// decisions, or an outage behind the fallback would leave nothing in the
// log. It has a throttle per outcome (allowed, denied, would_deny), so
// that the requests the fallback admits never hide those it refuses.
type failLogs struct {
	passed, rejected failLog
	fallback         [ratewindow.WouldDeny + 1]failLog
}

func newFailLogs() *failLogs {
	l := &failLogs{
		passed:   failLog{level: slog.LevelWarn, msg: msgFailedPassed, fail: "open", now: time.Now},
		rejected: failLog{level: slog.LevelError, msg: msgFailedRejected, fail: "closed", now: time.Now},
	}
	for i := range l.fallback {
		l.fallback[i] = failLog{level: slog.LevelWarn, msg: msgFallback, now: time.Now}
	}
	return l
}

// failLog is the records of one outcome. It writes one record per
// interval; the others are counted and the next record carries their
// count in "suppressed". No timer: the count of the last interval of an
// outage waits for the next failure.
type failLog struct {
	level slog.Level
	msg   string
	fail  string           // "open" or "closed"; "" for fallback decisions
	now   func() time.Time // time.Now, or a test's clock

	mu         sync.Mutex
	last       time.Time // when the last record was written
	suppressed int64     // held back since then
}

// log writes the record of a failed request x, unless the default logger
// does not want its level or the throttle holds it back. The record names
// the error, the outcome, the route and the method, never the key or the
// path: a client controls those.
func (l *failLog) log(x Exchange, o ratewindow.Outcome, err error, observe bool) {
	ctx := x.Context()
	logger, suppressed, ok := l.start(ctx)
	if !ok {
		return
	}
	l.write(ctx, logger, suppressed,
		slog.Any("err", err),
		slog.String("outcome", o.String()),
		slog.String("route", x.Route()),
		methodAttr(x.Method()),
		slog.String("fail", l.fail),
		slog.Bool("observe_only", observe),
	)
}

// logDecision writes the record of a request x that the local fallback
// decided (d, outcome o), as log does a failure's: with the attributes of
// package logging's record for it (outcome, route, method, policy, limit,
// remaining, retry_after, cost, fallback=true), never the key or the path.
func (l *failLog) logDecision(x Exchange, o ratewindow.Outcome, d *core.Decision, cost int64) {
	ctx := x.Context()
	logger, suppressed, ok := l.start(ctx)
	if !ok {
		return
	}
	l.write(ctx, logger, suppressed,
		slog.String("outcome", o.String()),
		slog.String("route", x.Route()),
		methodAttr(x.Method()),
		slog.String("policy", d.Policy().Name),
		slog.Int64("limit", d.Limit),
		slog.Int64("remaining", d.Remaining),
		slog.Duration("retry_after", d.RetryAfter),
		slog.Int64("cost", cost),
		slog.Bool("fallback", true),
	)
}

// start returns the default logger and how many records were held back
// since the last one written, or false when the logger does not want the
// level or the throttle holds this record back. It is called before any
// attribute is built, so a throttled record costs nothing more.
func (l *failLog) start(ctx context.Context) (logger *slog.Logger, suppressed int64, ok bool) {
	logger = slog.Default()
	if !logger.Enabled(ctx, l.level) {
		return nil, 0, false
	}
	ok, suppressed = l.admit()
	return logger, suppressed, ok
}

// write writes a record of attrs, and of the count of records held back
// before it, if any, to logger.
func (l *failLog) write(ctx context.Context, logger *slog.Logger, suppressed int64, attrs ...slog.Attr) {
	if suppressed > 0 {
		attrs = append(attrs, slog.Int64("suppressed", suppressed))
	}
	logger.LogAttrs(ctx, l.level, l.msg, attrs...)
}

// methodAttr returns the method attribute, the method cut to maxMethod
// bytes and "…" if it is longer.
func methodAttr(m string) slog.Attr {
	if len(m) > maxMethod {
		m = m[:maxMethod] + "…"
	}
	return slog.String("method", m)
}

// admit reports whether a record may be written now and, if so, how many
// were held back since the last one. A clock read earlier than the last
// record (a stepped clock) lets the next one through.
func (l *failLog) admit() (bool, int64) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.last.IsZero() && !now.Before(l.last) && now.Sub(l.last) < failEvery {
		l.suppressed++
		return false, 0
	}
	n := l.suppressed
	l.last, l.suppressed = now, 0
	return true, n
}
