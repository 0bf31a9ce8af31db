package ginmw_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/ginmw"
)

// Gin answers a path that differs from a route's by a trailing slash with
// a redirect of its own (RedirectTrailingSlash, on by default), before
// any middleware runs: the limiter never sees those requests, and they
// spend no quota. The request the client is redirected to is counted.
func TestTrailingSlashRedirectIsNotCounted(t *testing.T) {
	l, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(1).Using(core.SlidingLog)})
	require.NoError(t, err)
	seen := 0
	limit, err := ginmw.New(l, ratewindow.WithOnDecision(func(ratewindow.Event) { seen++ }))
	require.NoError(t, err)
	r := gin.New()
	r.Use(limit)
	r.GET("/users/:id", func(c *gin.Context) { c.String(http.StatusOK, "ok\n") })

	var codes []int
	for _, p := range []string{"/users/1/", "/users/2/", "/users/1", "/users/1/", "/users/1"} {
		w := httptest.NewRecorder()
		r.ServeHTTP(w, httptest.NewRequest(http.MethodGet, p, nil))
		codes = append(codes, w.Code)
	}
	assert.Equal(t, []int{http.StatusMovedPermanently, http.StatusMovedPermanently, http.StatusOK, http.StatusMovedPermanently, http.StatusTooManyRequests}, codes)
	assert.Equal(t, 2, seen, "the limiter saw only the requests for the route")
}
