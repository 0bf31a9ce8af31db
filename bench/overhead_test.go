package bench

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/bench/httpbench"
)

// discardWriter is a ResponseWriter that keeps one header map and drops
// the body, so the benchmark times the middleware, not a recorder.
type discardWriter struct{ h http.Header }

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *discardWriter) WriteHeader(int)             {}

// BenchmarkMiddlewareOverhead runs one request through each net/http
// handler of the HTTP comparison in process: the bare handler (the floor),
// ratewindow's nethttp middleware and go-chi/httprate, all on the memory
// store with a limit no benchmark reaches. The difference to the floor is
// the middleware's overhead per request.
func BenchmarkMiddlewareOverhead(b *testing.B) {
	for _, nh := range httpbench.NetHTTPHandlers() {
		b.Run(nh.Name, func(b *testing.B) {
			h, err := nh.New()
			require.NoError(b, err)
			req := httptest.NewRequest(http.MethodGet, "/", nil)
			req.RemoteAddr = "203.0.113.7:41234"
			w := &discardWriter{h: http.Header{}}
			b.ReportAllocs()
			for b.Loop() {
				clear(w.h)
				h.ServeHTTP(w, req)
			}
		})
	}
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
