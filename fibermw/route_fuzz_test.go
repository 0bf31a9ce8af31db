package fibermw_test

import (
	"net"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/stretchr/testify/require"
	"github.com/valyala/fasthttp"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/fibermw"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

// FuzzRouteUnderUse sends requests of any method and path through an app
// with the middleware under app.Use, a group with a parameter and a
// Static: the route is always a pattern the app registered, the static
// route's, or "", never something the client spelled.
func FuzzRouteUnderUse(f *testing.F) {
	for _, seed := range [][2]string{
		{"GET", "/items/1"}, {"GET", "/API/V1/Users/2/"}, {"HEAD", "/static/app.js"},
		{"POST", "/nope"}, {"GET", "/files/a/b"}, {"GET", "//items//1"}, {"GET", "/items/1%2F2"},
	} {
		f.Add(seed[0], seed[1])
	}
	l, err := core.NewLimiter(memory.New(), []core.Policy{core.PerHour(1_000_000)})
	require.NoError(f, err)
	var route string
	limit, err := fibermw.New(l, ratewindow.WithKeyFunc(keyfuncs.Route),
		ratewindow.WithOnDecision(func(ev ratewindow.Event) { route = ev.Route }))
	require.NoError(f, err)
	ok := func(c *fiber.Ctx) error { return c.SendStatus(fiber.StatusOK) }
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Use(limit)
	app.Get("/", ok)
	app.Static("/static", f.TempDir())
	app.Get("/items/:id", ok)
	app.Post("/items/:id?", ok)
	app.Get("/files/*", ok)
	api := app.Group("/api/:version")
	api.Get("/users/:id", ok)
	api.Get("/flights/:from-:to", ok)
	allowed := map[string]bool{"": true, "/static/*": true}
	for _, r := range app.GetRoutes() {
		allowed[r.Path] = true
	}
	h := app.Handler()
	f.Fuzz(func(t *testing.T, method, path string) {
		var req fasthttp.Request
		req.Header.SetMethod(method)
		req.SetRequestURI(path)
		var ctx fasthttp.RequestCtx
		ctx.Init(&req, &net.TCPAddr{IP: net.IPv4(192, 0, 2, 1), Port: 1234}, nil)
		route = "unset"
		h(&ctx)
		if route != "unset" && !allowed[route] {
			t.Fatalf("%s %q: route %q is no pattern", method, path, route)
		}
	})
}
