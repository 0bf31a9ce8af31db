// Package middleware is the one request flow behind every ratewindow HTTP
// adapter (nethttp, ginmw, echomw, fibermw).
//
// An adapter compiles its options once with New, then, for each request,
// wraps its native request and response in an Exchange and calls
// Flow.Handle. Handle derives the key, asks the limiter, writes the
// rate-limit headers, writes the deny or error response when the request is
// stopped, reports the Event, and tells the adapter whether to call the
// next handler. Everything an adapter does beyond that is translation.
//
// The flow allocates nothing of its own on the allowed path: the Event is
// built only when a hook or a handler needs it, and a store-call timeout
// (which needs a derived context) is only set up when configured.
//
// Hooks for later work: a circuit breaker or a local fallback limiter fits
// in front of the store call (see Flow.allow); a deny cache fits before
// it, keyed by the key.
package middleware
