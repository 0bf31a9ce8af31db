// Package logging writes what the ratewindow middleware decides to a
// log/slog logger: the few events an operator wants to read, not one line
// per request.
//
//	logger := slog.New(slog.NewJSONHandler(os.Stderr, nil))
//	mw, err := nethttp.New(limiter, ratewindow.WithOnDecision(logging.Hook(logger)))
//
// # What is logged
//
// Hook logs, by Event outcome:
//
//	store_error_passed     Warn   the limiter failed (store down, timeout); request passed (fail open)
//	store_error_rejected   Error  the limiter failed; request answered 503 (fail closed)
//	would_deny             Info   observe-only mode let through a request enforcement would deny (at most 1/s)
//	denied                 Info   only with WithDenials (at most 1/s)
//	allowed, denied        Warn   decided by core/resilient's local fallback: the store failed (at most 1/s; see below)
//	unclassified_rejected  Info   no key, an invalid cost or no limiter; request answered 400 (at most 1/s)
//	                       Error  the same for a mistake in the set-up (Err wraps core.ErrInvalidConfig)
//	unclassified_passed    Warn   the same, passed uncounted (at most 1/s)
//	allowed, skipped       -      otherwise never
//
// The would-deny records are what a canary rollout reads: before switching
// enforcement on, check that the clients and routes they name are the ones
// the new limit is meant to stop. Each names the binding policy, its limit,
// the remaining quota and retry_after, and carries fallback=true when the
// store was down and core/resilient's local fallback decided.
//
// A client chooses how many of its requests are denied, or would be, or
// carry no key: one flooding a canary must not make the server write a
// line per request. So would-deny, denial and unclassified records are
// throttled by default: at most one per second for each outcome, the next
// record counting those held back in "suppressed". WithDenialEvery
// changes the interval (zero logs every one). Nothing goes uncounted: when
// an interval ends with records held back and no new record to carry
// their count, the first of them is written then, counting the others,
// so the last second of a flood is in the log too. The throttle is global, not
// per client: the metrics count every request, and package topkeys names
// the keys most often denied, in fixed memory.
//
// During a store outage every request fails; by default the hook keeps
// that to one record per second per outcome (failed open, failed closed),
// counting the rest in "suppressed" the same way (WithErrorEvery changes
// the interval). The records written plus their "suppressed" counts add
// up to every request of the outcome.
//
// Behind core/resilient's local fallback a failed store call is not an
// error but a decision on local counts, with Decision.Fallback set. Such
// decisions get a record of their own, at Warn and throttled like store
// failures ("ratewindow: store failed, request decided by the local
// fallback", with the decision's attributes and fallback=true), so a store
// that fails behind the fallback is in the log too, even one that fails
// too rarely to open the breaker. A would-deny decision of the fallback,
// and with WithDenials a denial, is logged as would-deny or denied, with
// fallback=true.
//
// Each of these has a throttle of its own: the fallback's allowed
// requests apart from its denials, and its would-deny and denied records
// apart from the store's. During a partial outage a flood of the
// fallback's decisions does not hide the store's would-denies a canary is
// judged by, nor do the requests the fallback admits hide those it
// refuses; for each, the records written and their "suppressed" counts
// add up to its requests.
//
// The breaker of core/resilient says when the store fails, once per
// transition:
//
//	store, err := resilient.New(primary, resilient.WithOnStateChange(logging.BreakerStateChange(logger)))
//
// # Keys in logs
//
// A rate-limit key is usually an IP address or an API key: personal data or
// a secret. Records carry "key_hash" by default, an HMAC of the key under a
// secret (random per process unless WithKeySecret sets one), so one
// client's records can be matched without the key being readable.
// WithoutKeys omits it; WithRawKeys, for harmless keys, logs it as is. The
// topkeys report hashes keys the same way, so give both the same secret to
// match its entries with log records. The URL path is never logged, only
// the route pattern.
//
// # With metrics
//
// WithOnDecision takes several hooks, for example the Prometheus collector
// of package metrics and a logger:
//
//	ratewindow.WithOnDecision(collector.Observe, logging.Hook(logger))
package logging
