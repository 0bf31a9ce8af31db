package ratewindow

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/headerfmt"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

// Response is the part of a framework's response a Handler may use. Each
// adapter implements it over its native response.
type Response interface {
	// SetHeader sets a response header field, replacing any value.
	SetHeader(name, value string)
	// Send writes the status and the body. It is called at most once.
	Send(status int, body []byte)
}

// Handler writes the response to a request the middleware stops: a denial
// (DenyHandler) or a limiter failure under fail-closed (ErrorHandler). The
// request and response are valid only during the call.
type Handler func(w Response, r keyfuncs.Request, ev Event)

// DefaultDenyHandler answers 429 Too Many Requests with a JSON body such as
//
//	{"error":"rate_limited","message":"rate limit exceeded, retry in 3s","retry_after":3}
//
// where retry_after is the same whole number of seconds as the Retry-After
// header the middleware has already set.
func DefaultDenyHandler(w Response, _ keyfuncs.Request, ev Event) {
	secs := headerfmt.RetryAfterSeconds(&ev.Decision)
	b := make([]byte, 0, 112)
	b = append(b, `{"error":"rate_limited","message":"rate limit exceeded, retry in `...)
	b = strconv.AppendInt(b, secs, 10)
	b = append(b, `s","retry_after":`...)
	b = strconv.AppendInt(b, secs, 10)
	b = append(b, "}\n"...)
	w.SetHeader("Content-Type", "application/json")
	w.Send(http.StatusTooManyRequests, b)
}

var unavailableBody = []byte(`{"error":"rate_limiter_unavailable","message":"the rate limiter is unavailable, try again later"}` + "\n")

// DefaultErrorHandler answers 503 Service Unavailable with the JSON body
//
//	{"error":"rate_limiter_unavailable","message":"the rate limiter is unavailable, try again later"}
//
// It never shows the underlying error to the client; the OnDecision hook
// sees it in Event.Err.
func DefaultErrorHandler(w Response, _ keyfuncs.Request, _ Event) {
	w.SetHeader("Content-Type", "application/json")
	w.Send(http.StatusServiceUnavailable, unavailableBody)
}

// DefaultUnclassifiedHandler answers 400 Bad Request to a request the
// limiter could not classify, with a JSON body saying why:
//
//	{"error":"no_rate_limit_key","message":"..."}     the key func found no key
//	{"error":"invalid_request_cost","message":"..."}  cost below 1 or above a limit
//	{"error":"no_rate_limiter","message":"..."}       no limiter applies
//
// It sets no Retry-After: waiting would not help.
func DefaultUnclassifiedHandler(w Response, _ keyfuncs.Request, ev Event) {
	body := noKeyBody
	switch {
	case errors.Is(ev.Err, core.ErrInvalidCost):
		body = invalidCostBody
	case errors.Is(ev.Err, ErrNoLimiter):
		body = noLimiterBody
	}
	w.SetHeader("Content-Type", "application/json")
	w.Send(http.StatusBadRequest, body)
}

var (
	noKeyBody       = []byte(`{"error":"no_rate_limit_key","message":"the request carries nothing to rate-limit it by"}` + "\n")
	invalidCostBody = []byte(`{"error":"invalid_request_cost","message":"the request's cost is outside what the rate limit allows"}` + "\n")
	noLimiterBody   = []byte(`{"error":"no_rate_limiter","message":"no rate limit applies to this request"}` + "\n")
)
