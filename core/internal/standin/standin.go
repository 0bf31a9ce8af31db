// Package standin is the mark a Store decorator puts on an answer that a
// stand-in made instead of the store, for the Limiter to recognise.
package standin

import "errors"

// ErrFallback marks a Store answer that core/resilient's local fallback
// made, with a valid Result, because the primary store failed or its
// circuit breaker was open. A Limiter turns such an answer into an
// ordinary Decision with Fallback set and a nil error.
var ErrFallback = errors.New("ratewindow: decided by a local fallback, not by the store")
