// Package middleware is the one request flow behind every ratewindow HTTP
// adapter (nethttp, ginmw, echomw, fibermw).
//
// An adapter compiles its options once with New, then, for each request,
// wraps its native request and response in an Exchange and calls
// Flow.Handle. Handle derives the key (or, with a resolver, such as
// package config's, looks the request up once for its key, limiter and
// mode together), asks the limiter, writes the
// rate-limit headers, writes the deny or error response when the request is
// stopped, reports the Event, and tells the adapter whether to call the
// next handler. Everything an adapter does beyond that is translation.
//
// The flow allocates nothing of its own on the allowed path: the Event is
// built only when a hook or a handler needs it, and a store-call timeout
// (which needs a derived context) is only set up when configured. With no
// hook, a limiter failure is still not silent: it is logged to
// slog.Default(), at most once per second per outcome (see failLogs); so
// is a decision of core/resilient's local fallback, a store failure that
// is not an error.
//
// Circuit breaking, the local fallback and the deny cache are not here:
// they live below the flow, in core/resilient, a Store decorator, so a bare
// Limiter gets them too.
package middleware
