package client

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A server that refuses every request, with thousands of policies and a
// Retry-After date already past: each request is sent at most the retry
// budget more times, the caller gets the last 429, and nothing is left
// running once the transport's connections are closed.
func TestServerThatRefusesForever(t *testing.T) {
	var calls atomic.Int64
	policies := make([]string, 5000)
	for i := range policies {
		policies[i] = `"p` + strings.Repeat("x", i%7) + `";r=` + []string{"0", "18446744073709551616", "-3", "9"}[i%4] + `;t=1`
	}
	field := strings.Join(policies, ", ")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("RateLimit", field)
		w.Header().Set("Retry-After", "Mon, 05 Aug 2019 10:13:00 GMT")
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	defer srv.Close()
	base := &http.Transport{}
	tr, err := New(base, WithMaxRetries(2))
	require.NoError(t, err)
	waits := fakeTime(tr)
	before := runtime.NumGoroutine()
	for range 3 {
		req, err := http.NewRequest(http.MethodGet, srv.URL, nil)
		require.NoError(t, err)
		resp, err := tr.RoundTrip(req)
		require.NoError(t, err)
		_ = resp.Body.Close()
		assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	}
	assert.Equal(t, int64(9), calls.Load(), "three requests, each retried twice")
	for _, w := range *waits {
		assert.LessOrEqual(t, w, 2*time.Second, "a past Retry-After is no wait; the fields a second")
	}
	base.CloseIdleConnections()
	srv.Close()
	// Goroutines of closed connections end on their own: wait for them,
	// boundedly, rather than sleep a fixed time.
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		runtime.Gosched()
		time.Sleep(10 * time.Millisecond)
	}
	assert.LessOrEqual(t, runtime.NumGoroutine(), before, "goroutines left running")
}
