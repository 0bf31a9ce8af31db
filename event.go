package ratewindow

import (
	"errors"
	"time"

	"github.com/ratewindow/ratewindow/core"
)

// Outcome says what the middleware did with a request.
type Outcome uint8

// The outcomes, one per request.
const (
	// Allowed: the limiter admitted the request; it was passed on.
	Allowed Outcome = iota
	// Denied: the limiter refused the request; it was answered 429.
	Denied
	// WouldDeny: the limiter refused the request but it was observe-only,
	// so it was passed on.
	WouldDeny
	// StoreErrorPassed: the limiter failed (store error, timeout, a key
	// func error other than keyfuncs.ErrNoKey) and the request was passed
	// on (fail open, or observe-only).
	StoreErrorPassed
	// StoreErrorRejected: the limiter failed and the request was answered
	// 503 (fail closed).
	StoreErrorRejected
	// Skipped: a skip func or keyfuncs.ErrSkip exempted the request; it
	// was passed on uncounted.
	Skipped
	// UnclassifiedRejected: the request could not be classified (its key
	// func found no key, its cost is below 1 or above a policy's limit, no
	// limiter applies to it, or the key func or limiter func failed on a
	// request its client cancelled) and was answered 400 (see
	// WithUnclassifiedHandler), or 503 by an adapter's Limit form given a
	// limiter it cannot use. Event.Err says why.
	UnclassifiedRejected
	// UnclassifiedPassed: the request could not be classified and was
	// passed on uncounted, because WithPassUnclassified was set or it was
	// observe-only.
	UnclassifiedPassed
)

var outcomeNames = [...]string{
	Allowed:            "allowed",
	Denied:             "denied",
	WouldDeny:          "would_deny",
	StoreErrorPassed:   "store_error_passed",
	StoreErrorRejected: "store_error_rejected",
	Skipped:            "skipped",

	UnclassifiedRejected: "unclassified_rejected",
	UnclassifiedPassed:   "unclassified_passed",
}

// String returns the outcome in snake case ("allowed", "would_deny", ...),
// ready for a metrics label.
func (o Outcome) String() string {
	if int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return "unknown"
}

// ErrNoLimiter is reported in Event.Err, with Outcome UnclassifiedRejected
// or UnclassifiedPassed, when the WithLimiterFunc function chose no limiter
// and no default limiter is configured, or chose a core.Limiter that
// core.NewLimiter did not make; by the adapters' Limit forms given a
// limiter they cannot use (nil, say); and by fibermw, in a Prefork child,
// for a request whose chosen limiter keeps its counts in the process.
var ErrNoLimiter = errors.New("ratewindow: no limiter for this request")

// Event is everything the middleware knows about one request, given to the
// OnDecision hook and to deny and error handlers. It is a plain value: keep
// it or send it elsewhere as you like.
type Event struct {
	// Outcome says what was done with the request.
	Outcome Outcome
	// Key is the rate-limit key, in the namespace of the strategy that
	// made it, e.g. "ip:192.0.2.1" or "hdr:x-api-key:abc123" (see package
	// keyfuncs); "" when skipped before or by the key func, or when the key
	// func failed. It is the key the limiter was asked about, the one to
	// pass to Limiter.Peek or Reset: a key func given to WithKeyFunc has
	// its keys bounded like a key func of your own, so a key of its that
	// starts with "h:" (a hashed one) is hashed once more.
	Key string
	// Route is the route pattern if the framework knows it, Method the
	// HTTP method, Path the URL path.
	Route, Method, Path string
	// Cost is the weight the request was charged (or would have been).
	Cost int64
	// Decision is the limiter's decision: binding policy, remaining,
	// retry-after, every policy's state, and Fallback when core/resilient's
	// local fallback made it because the store failed. It is the zero
	// Decision when the limiter was not asked (Skipped) or failed.
	Decision core.Decision
	// ObserveOnly reports whether the request was in observe-only mode.
	ObserveOnly bool
	// WouldDeny reports whether the limiter refused the request, whether
	// or not it was enforced (true for Denied and WouldDeny).
	WouldDeny bool
	// Err is the error that made the limiter fail: a store error (wrapping
	// context.DeadlineExceeded when the call's deadline, WithTimeout's or
	// the request's, ran out; os.ErrDeadlineExceeded when a Redis store's
	// own bound did, its client's read timeout or, with no deadline, the
	// 500 ms its retries of LOADING and the like may take) or a key func
	// error; or why the request could not be classified: keyfuncs.ErrNoKey,
	// core.ErrInvalidCost or ErrNoLimiter (test with errors.Is). Nil
	// otherwise.
	Err error
	// FailedOpen reports whether the request passed although the limiter
	// failed (Outcome StoreErrorPassed): fail-open, or observe-only.
	FailedOpen bool
	// Latency is the wall time the store call took (zero if none was
	// made).
	Latency time.Duration
}
