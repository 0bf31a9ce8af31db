package echomw_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/echomw"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

// Requests no route matches (404s, and 405s Echo answers itself) share one
// route key per method, with the
// middleware mounted before routing (e.Pre) or after it (e.Use): a client
// sending invented paths spends one quota, instead of minting a fresh
// quota and a store key per path. Under e.Pre, a real route is keyed by
// its pattern too, not by each path.
func TestRouteKeysUnmatchedRequestsAlike(t *testing.T) {
	for name, mount := range map[string]func(e *echo.Echo, limit echo.MiddlewareFunc){
		"e.Use": func(e *echo.Echo, limit echo.MiddlewareFunc) { e.Use(limit) },
		"e.Pre": func(e *echo.Echo, limit echo.MiddlewareFunc) { e.Pre(limit) },
	} {
		t.Run(name, func(t *testing.T) {
			l, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(1).Using(core.FixedWindow)})
			require.NoError(t, err)
			var keys, routes []string
			limit, err := echomw.New(l, ratewindow.WithKeyFunc(keyfuncs.Route),
				ratewindow.WithOnDecision(func(ev ratewindow.Event) {
					keys = append(keys, ev.Key)
					routes = append(routes, ev.Route)
				}))
			require.NoError(t, err)
			e := echo.New()
			mount(e, limit)
			e.GET("/items/:id", func(c echo.Context) error { return c.String(http.StatusOK, "ok\n") })
			status := func(method, path string) int {
				w := httptest.NewRecorder()
				e.ServeHTTP(w, httptest.NewRequest(method, path, nil))
				return w.Code
			}

			assert.Equal(t, http.StatusNotFound, status(http.MethodGet, "/nope-0"))
			for i := 1; i <= 5; i++ {
				assert.Equal(t, http.StatusTooManyRequests, status(http.MethodGet, fmt.Sprintf("/nope-%d", i)),
					"an unknown path is no fresh quota")
			}
			assert.Equal(t, http.StatusOK, status(http.MethodGet, "/items/1"), "a real route keeps its own quota")
			assert.Equal(t, http.StatusTooManyRequests, status(http.MethodGet, "/items/2"), "one quota per route, not per path")
			assert.Equal(t, http.StatusNotFound, status(http.MethodPost, "/nope-9"), "one unmatched key per method")
			// Echo answers a method the route does not take itself (405,
			// or 204 to OPTIONS), and names the route in c.Path(): no
			// route serves such a request, and a HEAD one must not spend
			// the GET route's quota.
			assert.Equal(t, http.StatusTooManyRequests, status(http.MethodPost, "/items/3"), "the unmatched POSTs' quota")
			assert.Equal(t, http.StatusTooManyRequests, status(http.MethodHead, "/items/3"), "the unmatched GETs' quota")
			assert.Equal(t, http.StatusNoContent, status(http.MethodOptions, "/items/3"))
			u := "route:GET (unmatched)"
			assert.Equal(t, []string{u, u, u, u, u, u, "route:GET /items/:id", "route:GET /items/:id", "route:POST (unmatched)",
				"route:POST (unmatched)", u, "route:OPTIONS (unmatched)"}, keys)
			assert.Equal(t, []string{"", "", "", "", "", "", "/items/:id", "/items/:id", "", "", "", ""}, routes)
		})
	}
}
