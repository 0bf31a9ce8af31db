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

// A request no route matches is keyed "route:<method> (unmatched)", not by
// the mount prefix: a flood of 404s must not spend the quota of the real
// route registered at that prefix ("/" under app.Use, "/api" under a
// group), and spends one quota, not one per path.
func TestRouteUnmatchedIsNotTheMount(t *testing.T) {
	ok := func(c *fiber.Ctx) error { return c.SendString("ok\n") }
	for name, c := range map[string]struct {
		build  func(app *fiber.App, limit fiber.Handler)
		prefix string // the mount prefix: "" for "/"
	}{
		"app.Use": {func(app *fiber.App, limit fiber.Handler) {
			app.Use(limit)
			app.Get("/", ok)
			app.Get("/items/:id", ok)
			app.Use(func(c *fiber.Ctx) error { return c.Next() }) // a later Use is no route
		}, ""},
		"app.Group": {func(app *fiber.App, limit fiber.Handler) {
			api := app.Group("/api", limit)
			api.Get("", ok)
			api.Get("/items/:id", ok)
		}, "/api"},
	} {
		t.Run(name, func(t *testing.T) {
			l, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(1).Using(core.FixedWindow)})
			require.NoError(t, err)
			var keys, routes []string
			limit, err := fibermw.New(l, ratewindow.WithKeyFunc(keyfuncs.Route),
				ratewindow.WithOnDecision(func(ev ratewindow.Event) {
					keys = append(keys, ev.Key)
					routes = append(routes, ev.Route)
				}))
			require.NoError(t, err)
			app := fiber.New(fiber.Config{DisableStartupMessage: true})
			c.build(app, limit)
			status := func(method, path string) int {
				resp, err := app.Test(httptest.NewRequest(method, path, nil))
				require.NoError(t, err)
				resp.Body.Close()
				return resp.StatusCode
			}
			root := max(c.prefix, "/") // the real route at the mount prefix
			assert.Equal(t, http.StatusNotFound, status(http.MethodGet, c.prefix+"/nope-0"))
			assert.Equal(t, http.StatusTooManyRequests, status(http.MethodGet, c.prefix+"/nope-1"), "404s share one quota")
			assert.Equal(t, http.StatusOK, status(http.MethodGet, root), "the route at the mount keeps its quota")
			assert.Equal(t, http.StatusOK, status(http.MethodGet, c.prefix+"/items/1"))
			u := "route:GET (unmatched)"
			assert.Equal(t, []string{u, u, "route:GET " + root, "route:GET " + c.prefix + "/items/:id"}, keys)
			assert.Equal(t, []string{"", "", root, c.prefix + "/items/:id"}, routes)
		})
	}
}

// A group whose prefix has a parameter is a mount like any other: each
// route under it has its own key, and a 404 under it is unmatched, not
// the group's prefix (which would make every route of the group share one
// quota with every unknown path under it).
func TestRouteUnderGroupWithParameter(t *testing.T) {
	ok := func(c *fiber.Ctx) error { return c.SendString("ok\n") }
	l, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(1).Using(core.FixedWindow)})
	require.NoError(t, err)
	var keys []string
	limit, err := fibermw.New(l, ratewindow.WithKeyFunc(keyfuncs.Route),
		ratewindow.WithOnDecision(func(ev ratewindow.Event) { keys = append(keys, ev.Key) }))
	require.NoError(t, err)
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	api := app.Group("/api/:version", limit)
	api.Get("/users/:id", ok)
	api.Get("/orders/:id", ok)
	status := func(path string) int {
		resp, err := app.Test(httptest.NewRequest(http.MethodGet, path, nil))
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	assert.Equal(t, http.StatusNotFound, status("/api/v1/nope"))
	assert.Equal(t, http.StatusOK, status("/api/v1/users/1"))
	assert.Equal(t, http.StatusTooManyRequests, status("/api/v2/users/2"), "one quota per route")
	assert.Equal(t, http.StatusOK, status("/api/v1/orders/1"), "another route, another quota")
	assert.Equal(t, []string{"route:GET (unmatched)", "route:GET /api/:version/users/:id",
		"route:GET /api/:version/users/:id", "route:GET /api/:version/orders/:id"}, keys)
}
