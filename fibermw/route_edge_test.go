package fibermw_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
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

// routeKeyed returns an app whose middleware, built by mount, keys by
// route with a quota of one a minute, a status func that serves a request
// and the keys the requests were given.
func routeKeyed(t *testing.T, mount func(app *fiber.App, limit fiber.Handler)) (status func(method, path string) int, keys *[]string) {
	t.Helper()
	l, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(1).Using(core.FixedWindow)})
	require.NoError(t, err)
	keys = new([]string)
	limit, err := fibermw.New(l, ratewindow.WithKeyFunc(keyfuncs.Route),
		ratewindow.WithOnDecision(func(ev ratewindow.Event) { *keys = append(*keys, ev.Key) }))
	require.NoError(t, err)
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	mount(app, limit)
	return func(method, path string) int {
		resp, err := app.Test(httptest.NewRequest(method, path, nil))
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}, keys
}

// A mount whose pattern has a wildcard or an optional parameter is still a
// mount: the routes registered after it each have their own key, not the
// mount's pattern (which would make every route under it share one quota).
func TestRouteUnderWildcardMount(t *testing.T) {
	ok := func(c *fiber.Ctx) error { return c.SendString("ok\n") }
	for name, c := range map[string]struct {
		mount         func(app *fiber.App, limit fiber.Handler)
		one, two, oth string // two paths of one route, a path of another
		route, other  string
	}{
		"app.Use with a wildcard": {func(app *fiber.App, limit fiber.Handler) {
			app.Use("/files/*", limit)
			app.Get("/files/:name", ok)
			app.Get("/files/:name/meta", ok)
		}, "/files/a", "/files/b", "/files/a/meta", "/files/:name", "/files/:name/meta"},
		"app.Group with an optional parameter": {func(app *fiber.App, limit fiber.Handler) {
			api := app.Group("/api/:version?", limit)
			api.Get("/users/:id", ok)
			api.Get("/orders/:id", ok)
		}, "/api/v1/users/1", "/api/v2/users/2", "/api/v1/orders/1", "/api/:version?/users/:id", "/api/:version?/orders/:id"},
	} {
		t.Run(name, func(t *testing.T) {
			status, keys := routeKeyed(t, c.mount)
			assert.Equal(t, http.StatusOK, status(http.MethodGet, c.one))
			assert.Equal(t, http.StatusTooManyRequests, status(http.MethodGet, c.two), "one quota per route")
			assert.Equal(t, http.StatusOK, status(http.MethodGet, c.oth), "another route, another quota")
			assert.Equal(t, []string{"route:GET " + c.route, "route:GET " + c.route, "route:GET " + c.other}, *keys)
		})
	}
}

// A route with a wildcard that mounts the middleware itself keeps its own
// pattern.
func TestRouteOfWildcardRoute(t *testing.T) {
	ok := func(c *fiber.Ctx) error { return c.SendString("ok\n") }
	status, keys := routeKeyed(t, func(app *fiber.App, limit fiber.Handler) {
		app.Get("/files/*", limit, ok)
		app.Get("/other/:name", ok)
	})
	assert.Equal(t, http.StatusOK, status(http.MethodGet, "/files/a/b"))
	assert.Equal(t, http.StatusTooManyRequests, status(http.MethodGet, "/files/a"))
	assert.Equal(t, []string{"route:GET /files/*", "route:GET /files/*"}, *keys)
}

// Files app.Static serves under app.Use have a route of their own, the
// static prefix: a flood of 404s elsewhere does not spend their quota, nor
// they that of the 404s. A static prefix "/" does not take the key of a
// route registered at "/".
func TestRouteStaticUnderUse(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "app.js"), []byte("x"), 0o600))
	ok := func(c *fiber.Ctx) error { return c.SendString("ok\n") }
	t.Run("prefix", func(t *testing.T) {
		status, keys := routeKeyed(t, func(app *fiber.App, limit fiber.Handler) {
			app.Use(limit)
			app.Static("/static", dir)
			app.Get("/", ok)
		})
		assert.Equal(t, http.StatusNotFound, status(http.MethodGet, "/nope"))
		assert.Equal(t, http.StatusOK, status(http.MethodGet, "/static/app.js"), "not the 404s' quota")
		assert.Equal(t, http.StatusTooManyRequests, status(http.MethodHead, "/static/app.js"), "HEAD spends GET's quota")
		assert.Equal(t, http.StatusOK, status(http.MethodGet, "/"))
		u := "route:GET (unmatched)"
		assert.Equal(t, []string{u, "route:GET /static/*", "route:GET /static/*", "route:GET /"}, *keys)
	})
	t.Run("root", func(t *testing.T) {
		status, keys := routeKeyed(t, func(app *fiber.App, limit fiber.Handler) {
			app.Use(limit)
			app.Get("/", ok) // between the two: a Static at the Use's own prefix joins the Use route
			app.Static("/", dir)
			app.Get("/items/:id", ok)
		})
		assert.Equal(t, http.StatusOK, status(http.MethodGet, "/app.js"))
		assert.Equal(t, http.StatusTooManyRequests, status(http.MethodGet, "/nope"), "no file: the static route's 404")
		assert.Equal(t, http.StatusOK, status(http.MethodGet, "/"), "the route at / keeps its quota")
		assert.Equal(t, http.StatusOK, status(http.MethodGet, "/items/1"), "a route wins over the static prefix")
		assert.Equal(t, []string{"route:GET /*", "route:GET /*", "route:GET /", "route:GET /items/:id"}, *keys)
	})
}
