package ginmw_test

import (
	"fmt"
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
	"github.com/ratewindow/ratewindow/keyfuncs"
)

// Requests no route matches share one route key per method: a client
// sending invented paths spends one quota, instead of minting a fresh
// quota and a store key per path.
func TestRouteKeysUnmatchedRequestsAlike(t *testing.T) {
	l, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(1).Using(core.FixedWindow)})
	require.NoError(t, err)
	var keys []string
	limit, err := ginmw.New(l, ratewindow.WithKeyFunc(keyfuncs.Route),
		ratewindow.WithOnDecision(func(ev ratewindow.Event) { keys = append(keys, ev.Key) }))
	require.NoError(t, err)
	r := gin.New()
	r.Use(limit)
	r.GET("/items/:id", func(c *gin.Context) { c.String(http.StatusOK, "ok\n") })
	status := func(method, path string) int {
		w := httptest.NewRecorder()
		r.ServeHTTP(w, httptest.NewRequest(method, path, nil))
		return w.Code
	}

	assert.Equal(t, http.StatusNotFound, status(http.MethodGet, "/nope-0"))
	for i := 1; i <= 5; i++ {
		assert.Equal(t, http.StatusTooManyRequests, status(http.MethodGet, fmt.Sprintf("/nope-%d", i)),
			"an unknown path is no fresh quota")
	}
	assert.Equal(t, http.StatusOK, status(http.MethodGet, "/items/1"), "a real route keeps its own quota")
	assert.Equal(t, http.StatusNotFound, status(http.MethodPost, "/nope-9"), "one unmatched key per method")
	assert.Equal(t, []string{"route:GET (unmatched)", "route:GET (unmatched)", "route:GET (unmatched)",
		"route:GET (unmatched)", "route:GET (unmatched)", "route:GET (unmatched)",
		"route:GET /items/:id", "route:POST (unmatched)"}, keys)
}
