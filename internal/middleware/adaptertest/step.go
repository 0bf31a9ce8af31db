package adaptertest

import (
	"strconv"
	"testing"
	"time"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/headerfmt"
)

// Scenario is one row of the table: a middleware configuration and the
// requests a client makes, with what it must see.
type Scenario struct {
	Name string
	// Policies of the default limiter; nil means 3 per minute, fixed
	// window, named "minute".
	Policies []core.Policy
	// Store makes the default limiter's store; nil means memory.New. It
	// may skip the test (a Redis store without a Redis to test on).
	Store func(t *testing.T) core.Store
	// Options builds the middleware options.
	Options func(env *Env) []ratewindow.Option
	// Steps run in order.
	Steps []Step
	// Check, if set, runs after the steps (e.g. on the recorded events).
	Check func(t *testing.T, env *Env)
}

// Step is one request (Repeat times), or one action when Do is set.
type Step struct {
	// Advance moves the fake clock before the step.
	Advance time.Duration
	// Path defaults to "/".
	Path string
	// Header holds request header fields; "Host" sets the Host field.
	Header map[string]string
	// Lines holds header lines sent after Header, as name and value
	// pairs: a name given twice is sent on two lines, in order.
	Lines []string
	// AbsoluteHost, if set, sends the request-target in absolute form,
	// "http://" AbsoluteHost and the path, as a client writes it to a
	// proxy. A server takes the request to be for that host, whatever
	// the Host field says.
	AbsoluteHost string
	// Repeat sends the same request that many times (default once).
	Repeat int
	// Status is the expected status.
	Status int
	// Want, if not nil, holds the expected rate-limit fields and
	// Retry-After, exactly: every tracked field not in Want must be absent
	// (so none means no field at all).
	Want map[string]string
	// Body, if set, is the exact expected body.
	Body string
	// EmptyBody, if set, requires the body to be empty.
	EmptyBody bool
	// ContentType, if set, is the expected Content-Type.
	ContentType string
	// Do, if set, replaces the request by an action.
	Do func(t *testing.T, env *Env)
}

func (s Step) path() string {
	if s.Path == "" {
		return "/"
	}
	return s.Path
}

// none is the Want of a response without any rate-limit field.
var none = map[string]string{}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// ietf is the expected IETF fields for one policy: RateLimit-Policy with
// quota q and window w seconds, RateLimit with remaining r and reset t.
func ietf(name string, q, w, r, t int64) map[string]string {
	return map[string]string{
		headerfmt.FieldPolicy:    `"` + name + `";q=` + itoa(q) + ";w=" + itoa(w),
		headerfmt.FieldRateLimit: `"` + name + `";r=` + itoa(r) + ";t=" + itoa(t),
	}
}

// minute is ietf for the default policy, 3 per minute.
func minute(r, t int64) map[string]string { return ietf("minute", 3, 60, r, t) }

// denied adds Retry-After to fields.
func denied(fields map[string]string, retry int64) map[string]string {
	out := map[string]string{headerfmt.FieldRetryAfter: itoa(retry)}
	for k, v := range fields {
		out[k] = v
	}
	return out
}

const (
	okBody   = "ok\n"
	jsonType = "application/json"
)

func denyBody(retry int64) string {
	return `{"error":"rate_limited","message":"rate limit exceeded, retry in ` + itoa(retry) + `s","retry_after":` + itoa(retry) + "}\n"
}

// The default bodies for requests the limiter cannot classify.
const (
	noKeyBody       = `{"error":"no_rate_limit_key","message":"the request carries nothing to rate-limit it by"}` + "\n"
	invalidCostBody = `{"error":"invalid_request_cost","message":"the request's cost is outside what the rate limit allows"}` + "\n"
)

const unavailableBody = `{"error":"rate_limiter_unavailable","message":"the rate limiter is unavailable, try again later"}` + "\n"

func client(id string) map[string]string { return map[string]string{"X-Client": id} }
