package bench

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/bench/httpbench"
)

// BenchmarkMiddlewareOverhead runs one request through each net/http
// handler of the HTTP comparison in process: the bare handler (the floor),
// ratewindow's nethttp middleware for each algorithm and go-chi/httprate,
// all on the memory store with a limit no benchmark reaches, once with a
// handler that sets Content-Type and once with one that sets no header.
// The difference to the floor is the middleware's overhead per request.
func BenchmarkMiddlewareOverhead(b *testing.B) {
	for _, v := range []struct {
		name     string
		noHeader bool
	}{{"content-type", false}, {"no-header", true}} {
		b.Run(v.name, func(b *testing.B) {
			for _, nh := range httpbench.NetHTTPHandlers(v.noHeader) {
				h, err := nh.New()
				require.NoError(b, err, nh.Name)
				b.Run(nh.Name, func(b *testing.B) {
					r := httptest.NewRequest(http.MethodGet, "/", nil)
					r.RemoteAddr = "192.0.2.1:1234"
					w := &discard{h: http.Header{}}
					b.ReportAllocs()
					for b.Loop() {
						clear(w.h)
						h.ServeHTTP(w, r)
					}
				})
			}
		})
	}
}

// discard is a ResponseWriter that keeps only its header map (reset per
// request by the benchmark), so the rows differ by the middleware alone.
type discard struct{ h http.Header }

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(b []byte) (int, error) { return len(b), nil }
func (d *discard) WriteHeader(int)             {}

// TestMiddlewareHandlersAnswer checks the benchmark measures real work:
// every handler answers 200 and the limited ones write their headers.
func TestMiddlewareHandlersAnswer(t *testing.T) {
	for _, noHeader := range []bool{false, true} {
		for _, nh := range httpbench.NetHTTPHandlers(noHeader) {
			h, err := nh.New()
			require.NoError(t, err, nh.Name)
			rec := httptest.NewRecorder()
			req := httptest.NewRequest(http.MethodGet, "/", nil)
			req.RemoteAddr = "203.0.113.7:41234"
			h.ServeHTTP(rec, req)
			require.Equal(t, http.StatusOK, rec.Code, nh.Name)
			switch {
			case strings.HasPrefix(nh.Name, "ratewindow-"):
				require.NotEmpty(t, rec.Header().Get("RateLimit"), nh.Name)
			case nh.Name == "httprate":
				require.NotEmpty(t, rec.Header().Get("X-RateLimit-Remaining"), nh.Name)
			}
		}
	}
}
