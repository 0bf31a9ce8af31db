package ratewindow_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

func TestOutcome(t *testing.T) {
	for _, c := range []struct {
		o      ratewindow.Outcome
		name   string
		passed bool
	}{
		{ratewindow.Allowed, "allowed", true},
		{ratewindow.Denied, "denied", false},
		{ratewindow.WouldDeny, "would_deny", true},
		{ratewindow.StoreErrorPassed, "store_error_passed", true},
		{ratewindow.StoreErrorRejected, "store_error_rejected", false},
		{ratewindow.Skipped, "skipped", true},
		{ratewindow.Outcome(99), "unknown", true},
	} {
		assert.Equal(t, c.name, c.o.String())
		assert.Equal(t, c.passed, c.o.Passed(), c.name)
	}
}

// response records what a handler writes.
type response struct {
	header map[string]string
	status int
	body   string
}

func (r *response) SetHeader(name, value string) { r.header[name] = value }
func (r *response) Send(status int, body []byte) { r.status, r.body = status, string(body) }

func TestDefaultHandlers(t *testing.T) {
	p := core.PerMinute(10)
	ev := ratewindow.Event{Outcome: ratewindow.Denied, Decision: core.Decision{
		Limit: 10, RetryAfter: 2500 * time.Millisecond, ResetAfter: 2500 * time.Millisecond, Policies: []core.Policy{p},
	}}
	w := &response{header: map[string]string{}}
	ratewindow.DefaultDenyHandler(w, &keyfuncs.StaticRequest{}, ev)
	assert.Equal(t, http.StatusTooManyRequests, w.status)
	assert.Equal(t, "application/json", w.header["Content-Type"])
	assert.JSONEq(t, `{"error":"rate_limited","message":"rate limit exceeded, retry in 3s","retry_after":3}`, w.body)

	w = &response{header: map[string]string{}}
	ratewindow.DefaultErrorHandler(w, &keyfuncs.StaticRequest{}, ratewindow.Event{Outcome: ratewindow.StoreErrorRejected})
	assert.Equal(t, http.StatusServiceUnavailable, w.status)
	assert.Equal(t, "application/json", w.header["Content-Type"])
	assert.JSONEq(t, `{"error":"rate_limiter_unavailable","message":"the rate limiter is unavailable, try again later"}`, w.body)
}
