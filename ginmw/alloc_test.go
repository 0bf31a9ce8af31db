package ginmw

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
)

// headerOnly is a ResponseWriter that keeps only its header map.
type headerOnly struct{ h http.Header }

func (w *headerOnly) Header() http.Header         { return w.h }
func (w *headerOnly) Write(b []byte) (int, error) { return len(b), nil }
func (w *headerOnly) WriteHeader(int)             {}

// The rate-limit fields of one response share one value block, as in the
// other adapters, instead of one []string per field: the middleware adds
// the RateLimit value and that block, nothing more (the policy field is
// formatted once per policy set, and a returning client's key comes from
// the key cache), and the mark that keeps a middleware mounted twice from
// charging twice: c.Keys, which Gin allocates on first use (two
// allocations, none in an app whose earlier middleware has used c.Set).
func TestAllocsHeaderFields(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts")
	}
	gin.SetMode(gin.ReleaseMode)
	l, err := core.NewLimiter(memory.New(), []core.Policy{core.PerHour(1_000_000_000)})
	require.NoError(t, err)
	limit, err := New(l)
	require.NoError(t, err)
	ok := func(c *gin.Context) { c.Status(http.StatusOK) }
	bare, limited := gin.New(), gin.New()
	bare.GET("/", ok)
	limited.GET("/", limit, ok)

	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.RemoteAddr = "192.0.2.1:1234"
	allocs := func(h http.Handler) float64 {
		w := &headerOnly{h: http.Header{}}
		return testing.AllocsPerRun(200, func() {
			clear(w.h)
			h.ServeHTTP(w, r)
		})
	}
	extra := allocs(limited) - allocs(bare)
	w := &headerOnly{h: http.Header{}}
	limited.ServeHTTP(w, r)
	require.NotEmpty(t, w.h.Get("RateLimit"), "the fields are written")
	assert.LessOrEqual(t, extra, 4.0, "allocations the middleware adds per request")
}
