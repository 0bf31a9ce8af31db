// Package ratewindow holds the options shared by every HTTP adapter of the
// ratewindow rate limiter: nethttp (net/http, chi, gorilla), ginmw (Gin),
// echomw (Echo) and fibermw (Fiber). The options have the same names and the
// same meaning in all four, because all four run the same request flow:
//
//  1. Skip the request if a skip func says so (exemptions such as /healthz
//     are simpler: do not mount the middleware on them).
//  2. Derive the key with a keyfuncs.KeyFunc (by default the peer IP, which
//     behind a reverse proxy is the proxy's: see keyfuncs.NewClientIP).
//  3. Choose the limiter: the one given to the adapter, or one chosen per
//     request by the WithLimiterFunc function (plans, tiers).
//  4. Weigh the request with the WithCost function (1 by default) and ask
//     the limiter, under an optional timeout, whether it is allowed.
//  5. Write the rate-limit headers (IETF RateLimit fields by default).
//  6. Pass the request on, or deny it: 429 Too Many Requests with
//     Retry-After and a JSON body. In observe-only mode nothing is ever
//     denied; the request passes and the decision is reported as
//     "would deny".
//  7. Report the decision to an OnDecision hook, if one is set.
//
// # Errors from the store
//
// When the store fails (Redis down, timeout), the middleware fails open by
// default: the request passes and the error is reported in the Event. With
// WithFailClosed it answers 503 Service Unavailable with the JSON body
// {"error":"rate_limiter_unavailable","message":"..."}. A key func error
// other than those below is treated the same way. keyfuncs.ErrSkip lets the
// request pass unlimited.
//
// A cancelled request is not a store failure. net/http cancels a request's
// context when its client hangs up, and also when it only half-closes the
// connection, though it still writes the answer; a store that honours the
// context (Redis) then gives up on the call, uncharged. Passing such a
// request by fail-open would let any client skip its limit by half-closing
// as it sends, so the middleware asks the store again, detached from the
// cancellation (keeping the context's values and deadline, within what
// is left of WithTimeout): the request is allowed or denied like any
// other, and waits for the store no longer than any other. A call
// cancelled after the store charged it is charged twice. A key func or
// limiter func that fails on a cancelled request leaves it unclassified,
// answered 400 even under WithPassUnclassified.
//
// A failing store is never silent. With no OnDecision hook, the middleware
// logs each failure to slog.Default(): Warn when the request passed, Error
// when it was answered 503, at most one record per second for each, the
// next record counting those held back in "suppressed". The record names
// the error, the outcome, the route and the method, never the key or the
// path. Behind core/resilient's local fallback a failed store call is a
// decision, not an error: with no hook, those decisions are logged too
// (Warn, "store failed, request decided by the local fallback",
// fallback=true, at most one record per second for each of allowed,
// denied and would-deny). Requests that a mistake in the set-up leaves
// unclassified are logged the same way: every request of a Limit form given a limiter it
// cannot use, every request of a key func that is itself a mistake (its
// error wraps core.ErrInvalidConfig: keyfuncs.Header given an invalid
// name, keyfuncs.Constant(""), and the like), each request whose
// WithLimiterFunc function chose a core.Limiter that core.NewLimiter did
// not make and, in a Fiber Prefork child, each one whose function chose a
// limiter that counts in the process.
// Setting a hook (logging.Hook, a metrics collector, any func) replaces
// that default: the hook then decides what is reported, and a
// hook that does nothing silences it.
//
// # Requests the limiter cannot classify
//
// A request with no key (keyfuncs.ErrNoKey, from the key func or the
// WithLimiterFunc function, or any error of theirs on a cancelled request),
// a cost below 1 or above a policy's limit, or no limiter
// (ErrNoLimiter) is not a store outage, and fail-open never waves it
// through: it is answered 400 Bad Request with a JSON body saying why and
// no Retry-After, and reported with Outcome
// UnclassifiedRejected. WithUnclassifiedHandler changes the response;
// WithPassUnclassified lets such requests pass uncounted (Outcome
// UnclassifiedPassed), as does observe-only mode; not those whose key func
// or limiter func failed on a cancelled request, which have a key that was
// not looked up: passed, they would let a client skip its limit by
// half-closing as it sends.
//
// # One line to add
//
//	limiter, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(100)})
//	...
//	http.ListenAndServe(":8080", nethttp.Limit(limiter)(handler))
//
// Limit uses the defaults (peer IP, IETF headers, fail open). With options,
// New returns the middleware and any configuration error:
//
//	limit, err := ginmw.New(limiter,
//		ratewindow.WithKeyFunc(clientIP), // keyfuncs.NewClientIP: the client behind your proxies
//		ratewindow.WithFailClosed(),
//		ratewindow.WithTimeout(50*time.Millisecond),
//	)
//
// Configuration errors wrap core.ErrInvalidConfig and name the field; they
// are returned by New, never raised while serving. An option given a nil
// function (WithKeyFunc(nil), say, from a NewClientIP whose error was
// ignored) is such an error, and so are a core.Limiter that
// core.NewLimiter did not make (a zero one) and two policy names that the
// headers would write alike ("tier-é" and "tier-ü" are both "tier-_").
// The Limit forms, which cannot return an error, answer every request 503
// instead, and log it as said above (see "Errors from the store").
//
// # Rolling out
//
// Start with WithObserveOnly(true): headers are written and every decision
// is reported, but nothing is blocked. Then switch enforcement on tenant by
// tenant with WithObserveOnlyFunc, and finally for everyone.
package ratewindow
