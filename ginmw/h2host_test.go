package ginmw_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/ginmw"
	"github.com/ratewindow/ratewindow/internal/h2test"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

// Over HTTP/2 the host a request is for is its :authority (Request.Host);
// a host field sent beside it stays in Request.Header. Keyed by that
// field, a client asking for a.example with a made-up host field got a
// fresh quota on every request.
func TestHTTP2HostIsTheAuthority(t *testing.T) {
	l, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(2).Using(core.SlidingLog)})
	require.NoError(t, err)
	limit, err := ginmw.New(l, ratewindow.WithKeyFunc(keyfuncs.Header("Host", nil)))
	require.NoError(t, err)
	r := gin.New()
	r.Use(limit)
	r.GET("/", func(c *gin.Context) { c.String(http.StatusOK, "ok\n") })
	srv := h2test.Serve(t, r)

	c := h2test.Dial(t, srv)
	var codes []int
	for i := range 4 {
		codes = append(codes, c.Do(t, ":method", "GET", ":scheme", "https", ":authority", "a.example", ":path", "/",
			"host", fmt.Sprintf("x%d.example", i)))
	}
	assert.Equal(t, []int{200, 200, 429, 429}, codes, "each made-up host field got a quota of its own")
}
