package nethttp_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/nethttp"
)

// cors is the smallest CORS middleware: it allows every origin, answers
// preflights itself and exposes the rate-limit fields.
func cors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		w.Header().Set("Access-Control-Expose-Headers", "RateLimit, RateLimit-Policy, Retry-After")
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// A preflight is a request like any other: under the limiter it is
// counted, and its 429 carries no CORS field. Mounted inside a CORS
// middleware, the limiter sees no preflight, and its 429 keeps the CORS
// fields, so a page can read it (docs/headers.md).
func TestCORSPreflightAndTheLimiter(t *testing.T) {
	newLimit := func() func(http.Handler) http.Handler {
		l, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(1).Using(core.SlidingLog)})
		require.NoError(t, err)
		limit, err := nethttp.New(l)
		require.NoError(t, err)
		return limit
	}
	ok := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	send := func(h http.Handler, method string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, "/", nil)
		r.Header.Set("Origin", "https://app.example")
		if method == http.MethodOptions {
			r.Header.Set("Access-Control-Request-Method", http.MethodPost)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}

	outside := newLimit()(cors(ok))
	assert.Equal(t, http.StatusNoContent, send(outside, http.MethodOptions).Code)
	denied := send(outside, http.MethodPost)
	assert.Equal(t, http.StatusTooManyRequests, denied.Code, "the preflight spent the quota")
	assert.Empty(t, denied.Header().Get("Access-Control-Allow-Origin"))

	inside := cors(newLimit()(ok))
	assert.Equal(t, http.StatusNoContent, send(inside, http.MethodOptions).Code)
	assert.Equal(t, http.StatusOK, send(inside, http.MethodPost).Code, "the preflight was not counted")
	denied = send(inside, http.MethodPost)
	assert.Equal(t, http.StatusTooManyRequests, denied.Code)
	assert.Equal(t, "*", denied.Header().Get("Access-Control-Allow-Origin"))
	assert.Contains(t, denied.Header().Get("Access-Control-Expose-Headers"), "Retry-After")
	assert.NotEmpty(t, denied.Header().Get("Retry-After"))
}
