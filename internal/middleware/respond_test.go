package middleware

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/keytest"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

// response records what a handler writes.
type response struct {
	header map[string]string
	status int
	body   string
}

func (r *response) SetHeader(name, value string) { r.header[name] = value }
func (r *response) Send(status int, body []byte) { r.status, r.body = status, string(body) }

func TestDefaultResponses(t *testing.T) {
	p := core.PerMinute(10)
	ev := ratewindow.Event{Outcome: ratewindow.Denied, Decision: core.Decision{
		Limit: 10, RetryAfter: 2500 * time.Millisecond, ResetAfter: 2500 * time.Millisecond, Policies: []core.Policy{p},
	}}
	w := &response{header: map[string]string{}}
	denyResponse(w, &keytest.Request{}, ev)
	assert.Equal(t, http.StatusTooManyRequests, w.status)
	assert.Equal(t, "application/json", w.header["Content-Type"])
	assert.JSONEq(t, `{"error":"rate_limited","message":"rate limit exceeded, retry in 3s","retry_after":3}`, w.body)

	w = &response{header: map[string]string{}}
	unavailableResponse(w, &keytest.Request{}, ratewindow.Event{Outcome: ratewindow.StoreErrorRejected})
	assert.Equal(t, http.StatusServiceUnavailable, w.status)
	assert.Equal(t, "application/json", w.header["Content-Type"])
	assert.JSONEq(t, `{"error":"rate_limiter_unavailable","message":"the rate limiter is unavailable, try again later"}`, w.body)

	for err, code := range map[error]string{
		keyfuncs.ErrNoKey:       "no_rate_limit_key",
		core.ErrInvalidCost:     "invalid_request_cost",
		ratewindow.ErrNoLimiter: "no_rate_limiter",
	} {
		w = &response{header: map[string]string{}}
		unclassifiedResponse(w, &keytest.Request{}, ratewindow.Event{Outcome: ratewindow.UnclassifiedRejected, Err: fmt.Errorf("wrapped: %w", err)})
		assert.Equal(t, http.StatusBadRequest, w.status)
		assert.Contains(t, w.body, `"error":"`+code+`"`)
	}
}
