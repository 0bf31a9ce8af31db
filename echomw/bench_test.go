package echomw

import (
	"net/http"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/internal/middleware/adaptertest"
)

// BenchmarkOverhead compares a bare Echo route with the same route behind
// the middleware on the memory store; the difference is the overhead.
func BenchmarkOverhead(b *testing.B) {
	limit, err := New(adaptertest.BenchLimiter(b))
	require.NoError(b, err)
	ok := func(c echo.Context) error { return c.NoContent(http.StatusOK) }
	bare := echo.New()
	bare.GET("/", ok)
	limited := echo.New()
	limited.GET("/", ok, limit)
	adaptertest.RunOverhead(b, adaptertest.BenchHandler{Name: "bare", Handler: bare},
		adaptertest.BenchHandler{Name: "ratewindow", Handler: limited})
}
