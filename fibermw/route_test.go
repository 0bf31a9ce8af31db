package fibermw_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/fibermw"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

// Mounted with Use or on a group, the middleware keys by the route that
// will handle the request, not by the mount prefix: each route has its own
// quota, and hooks see the route pattern.
func TestRouteUnderUseAndGroup(t *testing.T) {
	ok := func(c *fiber.Ctx) error { return c.SendString("ok\n") }
	for name, build := range map[string]func(app *fiber.App, limit fiber.Handler){
		"app.Use": func(app *fiber.App, limit fiber.Handler) {
			app.Use(limit)
			app.Get("/api/users/:id", ok)
			app.Get("/api/orders/:id", ok)
			app.Get("/api/static", ok)
		},
		"app.Group": func(app *fiber.App, limit fiber.Handler) {
			api := app.Group("/api", limit)
			api.Get("/users/:id", ok)
			api.Get("/orders/:id", ok)
			api.Get("/static", ok)
		},
		"app.Use with a prefix, then other middleware": func(app *fiber.App, limit fiber.Handler) {
			app.Use("/api", limit)
			app.Use(func(c *fiber.Ctx) error { return c.Next() })
			app.Get("/api/users/:id", ok)
			app.Get("/api/orders/:id", ok)
			app.Get("/api/static", ok)
		},
	} {
		t.Run(name, func(t *testing.T) {
			l, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(1).Using(core.FixedWindow)})
			require.NoError(t, err)
			var routes []string
			limit, err := fibermw.New(l, ratewindow.WithKeyFunc(keyfuncs.Route),
				ratewindow.WithOnDecision(func(ev ratewindow.Event) { routes = append(routes, ev.Route) }))
			require.NoError(t, err)
			app := fiber.New(fiber.Config{DisableStartupMessage: true})
			build(app, limit)
			status := func(path string) int {
				resp, err := app.Test(httptest.NewRequest(http.MethodGet, path, nil))
				require.NoError(t, err)
				resp.Body.Close()
				return resp.StatusCode
			}
			assert.Equal(t, 200, status("/api/users/1"))
			assert.Equal(t, 429, status("/api/users/2"), "one quota per route, not per path")
			assert.Equal(t, 200, status("/api/orders/1"), "another route, another quota")
			assert.Equal(t, 200, status("/API/Static/"), "matched as Fiber matches: case and trailing slash")
			assert.Equal(t, []string{"/api/users/:id", "/api/users/:id", "/api/orders/:id", "/api/static"}, routes)
		})
	}
}
