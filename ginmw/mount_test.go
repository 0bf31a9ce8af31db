package ginmw_test

import (
	"net/http/httptest"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/ginmw"
)

// The same middleware mounted by r.Use and on a group, or on a group and
// on one of its routes, runs twice for the request: it charges once, or
// the client would get half the limit the policy states. Two middlewares
// (two New) still charge each.
func TestMountedTwiceChargesOnce(t *testing.T) {
	gin.SetMode(gin.ReleaseMode)
	newLimit := func(n int64) gin.HandlerFunc {
		l, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(n).Using(core.SlidingLog)})
		require.NoError(t, err)
		h, err := ginmw.New(l)
		require.NoError(t, err)
		return h
	}
	ok := func(c *gin.Context) { c.String(200, "ok") }
	codes := func(r *gin.Engine, path string, n int) []int {
		var cs []int
		for i := 0; i < n; i++ {
			w := httptest.NewRecorder()
			r.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
			cs = append(cs, w.Code)
		}
		return cs
	}

	limit := newLimit(2)
	r := gin.New()
	r.Use(limit)
	r.Group("/api", limit).GET("/x", ok)
	assert.Equal(t, []int{200, 200, 429}, codes(r, "/api/x", 3), "r.Use and group")

	limit = newLimit(2)
	r = gin.New()
	r.Group("/api", limit).Group("/v1").GET("/y", limit, ok)
	assert.Equal(t, []int{200, 200, 429}, codes(r, "/api/v1/y", 3), "nested group and route")

	// Two middlewares, each over its own store: each charges, and the
	// route's limit of 2 stops the third request the engine's 3 allows.
	r = gin.New()
	r.Use(newLimit(3))
	r.GET("/z", newLimit(2), ok)
	assert.Equal(t, []int{200, 200, 429}, codes(r, "/z", 3), "two middlewares")
}
