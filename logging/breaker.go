package logging

import (
	"context"
	"log/slog"

	"github.com/ratewindow/ratewindow/core/resilient"
)

// The messages of the records BreakerStateChange writes.
const (
	msgBreakerOpen     = "ratewindow: circuit breaker opened, keys of the failing store (or Cluster master) fail fast"
	msgBreakerHalfOpen = "ratewindow: circuit breaker half-open, probing the failing store (or Cluster master)"
	msgBreakerClosed   = "ratewindow: circuit breaker closed, store calls resume"
	msgBreakerOther    = "ratewindow: circuit breaker changed state"
)

// BreakerStateChange returns a hook for resilient.WithOnStateChange that
// logs every transition of the circuit breaker to logger (slog.Default()
// if nil), with "from" and "to": opening at Warn, half-open and closing at
// Info. Transitions are rare (while a store stays down, two per open
// interval: half-open for the probe, open again when it fails), so every
// one is logged.
//
// Over a Redis Cluster core/resilient keeps a breaker per master and
// reports the worst of them: "opened" when the first master's breaker
// opens (only that master's keys fail fast or fall back; the other
// masters' keys still reach Redis), "half-open" when none is open and one
// is probing, and "closed" once every one is closed again. The hook is
// not told which master: the records do not say either. With several
// resilient Stores, give each its own hook on a logger that names it,
// logger.With("store", "sessions"), so that their records can be told
// apart.
//
// The breaker calls it under its lock: a logger whose handler blocks (a
// full pipe, a slow network sink) holds up the store's callers meanwhile.
func BreakerStateChange(logger *slog.Logger) func(from, to resilient.State) {
	if logger == nil {
		logger = slog.Default()
	}
	return func(from, to resilient.State) {
		level, msg := slog.LevelInfo, msgBreakerOther
		switch to {
		case resilient.Open:
			level, msg = slog.LevelWarn, msgBreakerOpen
		case resilient.HalfOpen:
			msg = msgBreakerHalfOpen
		case resilient.Closed:
			msg = msgBreakerClosed
		}
		logger.LogAttrs(context.Background(), level, msg,
			slog.String("from", from.String()), slog.String("to", to.String()))
	}
}
