package client_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// A server that announces an absurd wait (hundreds of years) must not make
// the transport spin or retry at once: the wait is longer than MaxWait, so
// the paced request is sent straight away and the 429 is returned.
func TestAbsurdWaitIsNotWaitedFor(t *testing.T) {
	for name, fields := range map[string]map[string]string{
		"Retry-After":     {"Retry-After": "99999999999"},
		"RateLimit reset": {"RateLimit": `"p";r=0;t=99999999999`},
		"legacy epoch":    {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "9999999999999999"},
	} {
		t.Run(name, func(t *testing.T) {
			srv := &always{status: http.StatusTooManyRequests, fields: fields}
			c := newClient(t)
			url := serve(t, srv)
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			start := time.Now()
			resp := do(t, c, request(t, ctx, "GET", url, nil))
			assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
			assert.Equal(t, int64(1), srv.calls.Load(), "a wait of centuries is not retried at once")
			// The next request is sent at once, since the wait does not
			// fit (or, a Retry-After, is not remembered), and neither
			// spins nor times out.
			resp = do(t, c, request(t, ctx, "GET", url, nil))
			assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
			assert.Equal(t, int64(2), srv.calls.Load())
			assert.Less(t, time.Since(start), 2*time.Second)
		})
	}
}
