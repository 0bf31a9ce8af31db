package ratewindow

import (
	"net/http"
	"strconv"

	"github.com/ratewindow/ratewindow/headers"
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
	secs := headers.RetryAfterSeconds(&ev.Decision)
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
