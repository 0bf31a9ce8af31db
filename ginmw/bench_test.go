package ginmw

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
)

type discard struct{ h http.Header }

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(b []byte) (int, error) { return len(b), nil }
func (d *discard) WriteHeader(int)             {}

// BenchmarkOverhead compares a bare Gin route with the same route behind
// the middleware on the memory store; the difference is the overhead.
func BenchmarkOverhead(b *testing.B) {
	gin.SetMode(gin.ReleaseMode)
	l, err := core.NewLimiter(memory.New(), []core.Policy{core.PerHour(1_000_000_000)})
	require.NoError(b, err)
	limit, err := New(l)
	require.NoError(b, err)
	ok := func(c *gin.Context) { c.Status(http.StatusOK) }
	bare := gin.New()
	bare.GET("/", ok)
	limited := gin.New()
	limited.GET("/", limit, ok)
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
