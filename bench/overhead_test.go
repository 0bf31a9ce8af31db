package bench

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/bench/httpbench"
	"github.com/ratewindow/ratewindow/internal/middleware/adaptertest"
)

// BenchmarkMiddlewareOverhead runs one request through each net/http
// handler of the HTTP comparison in process, with the adapters' own
// overhead runner: the bare handler (the floor), ratewindow's nethttp
// middleware and go-chi/httprate, all on the memory store with a limit no
// benchmark reaches. The difference to the floor is the middleware's
// overhead per request.
func BenchmarkMiddlewareOverhead(b *testing.B) {
	var rows []adaptertest.BenchHandler
	for _, nh := range httpbench.NetHTTPHandlers() {
		h, err := nh.New()
		require.NoError(b, err, nh.Name)
		rows = append(rows, adaptertest.BenchHandler{Name: nh.Name, Handler: h})
	}
	adaptertest.RunOverhead(b, rows...)
}

// TestMiddlewareHandlersAnswer checks the benchmark measures real work:
// every handler answers 200 and the limited ones write their headers.
func TestMiddlewareHandlersAnswer(t *testing.T) {
	for _, nh := range httpbench.NetHTTPHandlers() {
		h, err := nh.New()
		require.NoError(t, err, nh.Name)
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.RemoteAddr = "203.0.113.7:41234"
		h.ServeHTTP(rec, req)
		require.Equal(t, http.StatusOK, rec.Code, nh.Name)
		switch nh.Name {
		case "ratewindow-nethttp":
			require.NotEmpty(t, rec.Header().Get("RateLimit"), nh.Name)
		case "httprate":
			require.NotEmpty(t, rec.Header().Get("X-RateLimit-Remaining"), nh.Name)
		}
	}
}
