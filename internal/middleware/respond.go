package middleware

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/headerfmt"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

// The default responses. Their bodies are documented on the options that
// replace them (ratewindow.WithDenyHandler and the others).

// denyResponse answers 429 Too Many Requests with a JSON body such as
//
//	{"error":"rate_limited","message":"rate limit exceeded, retry in 3s","retry_after":3}
//
// where retry_after is the same whole number of seconds as the Retry-After
// header the middleware has already set.
func denyResponse(w ratewindow.Response, _ keyfuncs.Request, ev ratewindow.Event) {
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

// unavailableResponse answers 503 Service Unavailable with the JSON body
//
//	{"error":"rate_limiter_unavailable","message":"the rate limiter is unavailable, try again later"}
//
// It never shows the underlying error to the client; the OnDecision hook
// sees it in Event.Err.
func unavailableResponse(w ratewindow.Response, _ keyfuncs.Request, _ ratewindow.Event) {
	w.SetHeader("Content-Type", "application/json")
	w.Send(http.StatusServiceUnavailable, unavailableBody)
}

// unclassifiedResponse answers 400 Bad Request to a request the
// limiter could not classify, with a JSON body saying why:
//
//	{"error":"no_rate_limit_key","message":"..."}     the key func found no key
//	{"error":"invalid_request_cost","message":"..."}  cost below 1 or above a limit
//	{"error":"no_rate_limiter","message":"..."}       no limiter applies
//
// It sets no Retry-After: waiting would not help.
func unclassifiedResponse(w ratewindow.Response, _ keyfuncs.Request, ev ratewindow.Event) {
	body := noKeyBody
	switch {
	case errors.Is(ev.Err, core.ErrInvalidCost):
		body = invalidCostBody
	case errors.Is(ev.Err, ratewindow.ErrNoLimiter):
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
