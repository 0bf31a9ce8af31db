package echomw

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
)

type discard struct{ h http.Header }

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(b []byte) (int, error) { return len(b), nil }
func (d *discard) WriteHeader(int)             {}

// BenchmarkOverhead compares a bare Echo route with the same route behind
// the middleware on the memory store; the difference is the overhead.
func BenchmarkOverhead(b *testing.B) {
	l, err := core.NewLimiter(memory.New(), []core.Policy{core.PerHour(1_000_000_000)})
	require.NoError(b, err)
	limit, err := New(l)
	require.NoError(b, err)
	ok := func(c echo.Context) error { return c.NoContent(http.StatusOK) }
	bare := echo.New()
	bare.GET("/", ok)
	limited := echo.New()
	limited.GET("/", ok, limit)
	for _, c := range []struct {
		name string
		h    http.Handler
	}{{"bare", bare}, {"ratewindow", limited}} {
		b.Run(c.name, func(b *testing.B) {
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			r.RemoteAddr = "192.0.2.1:1234"
			w := &discard{h: http.Header{}}
			b.ReportAllocs()
			for b.Loop() {
				clear(w.h)
				c.h.ServeHTTP(w, r)
			}
		})
	}
}
