package ginmw

import (
	"net/http"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/internal/middleware/adaptertest"
)

// BenchmarkOverhead compares a bare Gin route with the same route behind
// the middleware on the memory store; the difference is the overhead.
func BenchmarkOverhead(b *testing.B) {
	gin.SetMode(gin.ReleaseMode)
	limit, err := New(adaptertest.BenchLimiter(b))
	require.NoError(b, err)
	ok := func(c *gin.Context) { c.Status(http.StatusOK) }
	bare := gin.New()
	bare.GET("/", ok)
	limited := gin.New()
	limited.GET("/", limit, ok)
	adaptertest.RunOverhead(b, adaptertest.BenchHandler{Name: "bare", Handler: bare},
		adaptertest.BenchHandler{Name: "ratewindow", Handler: limited})
}
