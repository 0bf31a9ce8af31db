package fibermw

import (
	"net"
	"strconv"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/stretchr/testify/require"
	"github.com/valyala/fasthttp"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/internal/middleware/adaptertest"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

// BenchmarkOverhead compares a bare Fiber route with the same route behind
// the middleware on the memory store, calling the app's fasthttp handler
// directly; the difference is the overhead.
func BenchmarkOverhead(b *testing.B) {
	limit, err := New(adaptertest.BenchLimiter(b))
	require.NoError(b, err)
	ok := func(c *fiber.Ctx) error { return c.SendStatus(fiber.StatusOK) }
	bare := fiber.New(fiber.Config{DisableStartupMessage: true})
	bare.Get("/", ok)
	limited := fiber.New(fiber.Config{DisableStartupMessage: true})
	limited.Get("/", limit, ok)
	for _, c := range []struct {
		name string
		app  *fiber.App
	}{{"bare", bare}, {"ratewindow", limited}} {
		b.Run(c.name, func(b *testing.B) {
			h := c.app.Handler()
			var req fasthttp.Request
			req.Header.SetMethod(fiber.MethodGet)
			req.SetRequestURI("/")
			var ctx fasthttp.RequestCtx
			ctx.Init(&req, &net.TCPAddr{IP: net.IPv4(192, 0, 2, 1), Port: 1234}, nil)
			b.ReportAllocs()
			for b.Loop() {
				ctx.Response.Reset()
				ctx.ResetUserValues() // as fasthttp does per request
				h(&ctx)
			}
		})
	}
}

// BenchmarkUseMount measures the route lookup the middleware makes when
// mounted with app.Use and keyed by route, in an app of 20 routes, against
// the same route with the middleware mounted on it; "use-404" is a path no
// route matches (the scan of every route, the traffic of a 404 flood).
func BenchmarkUseMount(b *testing.B) {
	ok := func(c *fiber.Ctx) error { return c.SendStatus(fiber.StatusOK) }
	build := func(use bool) *fiber.App {
		limit, err := New(adaptertest.BenchLimiter(b), ratewindow.WithKeyFunc(keyfuncs.Route))
		require.NoError(b, err)
		app := fiber.New(fiber.Config{DisableStartupMessage: true})
		if use {
			app.Use(limit)
		}
		for i := range 19 {
			app.Get("/r"+strconv.Itoa(i)+"/:id", ok)
		}
		if use {
			app.Get("/items/:id", ok)
		} else {
			app.Get("/items/:id", limit, ok)
		}
		return app
	}
	for _, c := range []struct {
		name string
		use  bool
		path string
	}{{"per-route", false, "/items/42"}, {"use", true, "/items/42"}, {"use-404", true, "/nope/42"}} {
		b.Run(c.name, func(b *testing.B) {
			h := build(c.use).Handler()
			var req fasthttp.Request
			req.Header.SetMethod(fiber.MethodGet)
			req.SetRequestURI(c.path)
			var ctx fasthttp.RequestCtx
			ctx.Init(&req, &net.TCPAddr{IP: net.IPv4(192, 0, 2, 1), Port: 1234}, nil)
			b.ReportAllocs()
			for b.Loop() {
				ctx.Response.Reset()
				ctx.ResetUserValues() // as fasthttp does per request
				h(&ctx)
			}
		})
	}
}
