package echomw_test

import (
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/echomw"
)

// The same middleware mounted by e.Use and on a route, or on a group and
// on one of its routes, runs twice for the request: it charges once, or
// the client would get half the limit the policy states. Two middlewares
// (two New) still charge each.
func TestMountedTwiceChargesOnce(t *testing.T) {
	newLimit := func(n int64) echo.MiddlewareFunc {
		l, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(n).Using(core.SlidingLog)})
		require.NoError(t, err)
		m, err := echomw.New(l)
		require.NoError(t, err)
		return m
	}
	ok := func(c echo.Context) error { return c.String(200, "ok") }
	codes := func(e *echo.Echo, path string, n int) []int {
		var cs []int
		for i := 0; i < n; i++ {
			w := httptest.NewRecorder()
			e.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
			cs = append(cs, w.Code)
		}
		return cs
	}

	limit := newLimit(2)
	e := echo.New()
	e.Use(limit)
	e.GET("/x", ok, limit)
	assert.Equal(t, []int{200, 200, 429}, codes(e, "/x", 3), "e.Use and route")

	limit = newLimit(2)
	e = echo.New()
	e.Group("/api", limit).GET("/y", ok, limit)
	assert.Equal(t, []int{200, 200, 429}, codes(e, "/api/y", 3), "group and route")

	// Two middlewares, each over its own store: each charges, and the
	// route's limit of 2 stops the third request the app's 3 allows.
	e = echo.New()
	e.Use(newLimit(3))
	e.GET("/z", ok, newLimit(2))
	assert.Equal(t, []int{200, 200, 429}, codes(e, "/z", 3), "two middlewares")
}
