package logging

import (
	"context"
	"log/slog"

	"github.com/ratewindow/ratewindow/core/resilient"
)

// The messages of the records BreakerStateChange writes.
const (
	msgBreakerOpen     = "ratewindow: circuit breaker opened, store calls fail fast"
	msgBreakerHalfOpen = "ratewindow: circuit breaker half-open, probing the store"
	msgBreakerClosed   = "ratewindow: circuit breaker closed, store calls resume"
	msgBreakerOther    = "ratewindow: circuit breaker changed state"
)

// BreakerStateChange returns a hook for resilient.WithOnStateChange that
// logs every transition of the circuit breaker to logger (slog.Default()
// if nil), with "from" and "to": opening at Warn, half-open and closing at
// Info. Transitions are rare (at most one per open interval while the
// store is down), so every one is logged.
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
