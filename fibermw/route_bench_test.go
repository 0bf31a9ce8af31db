package fibermw

import (
	"net"
	"strconv"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"github.com/ratewindow/ratewindow/keyfuncs"
)

// BenchmarkRouteKeyUnderUse measures keyfuncs.Route on a request seen
// from app.Use, in an app of 21 routes, 11 of them under /items: a
// matched route, a 404 under /items (every /items route is matched
// against the path), and a 404 elsewhere (the literal prefixes rule every
// route out); "+hook" reads the route once more, as the flow does for a
// hook's Event.
func BenchmarkRouteKeyUnderUse(b *testing.B) {
	for _, c := range []struct {
		name, path string
		hook       bool
	}{
		{"matched", "/items/42", false},
		{"404-items", "/items/42/nope", false},
		{"404-other", "/nope/42", false},
		{"404-items+hook", "/items/42/nope", true},
	} {
		b.Run(c.name, func(b *testing.B) {
			ok := func(c *fiber.Ctx) error { return c.SendStatus(fiber.StatusOK) }
			app := fiber.New(fiber.Config{DisableStartupMessage: true})
			hook := c.hook
			app.Use(func(c *fiber.Ctx) error {
				x := (*exchange)(c)
				b.ReportAllocs()
				for b.Loop() {
					c.Context().ResetUserValues() // a fresh request
					if _, err := keyfuncs.Route(x); err != nil {
						b.Fatal(err)
					}
					if hook {
						_ = x.Route()
					}
				}
				return nil
			})
			for i := range 10 {
				app.Get("/items/:id/r"+strconv.Itoa(i), ok)
				app.Get("/r"+strconv.Itoa(i)+"/:id", ok)
			}
			app.Get("/items/:id", ok)
			var req fasthttp.Request
			req.Header.SetMethod(fiber.MethodGet)
			req.SetRequestURI(c.path)
			var ctx fasthttp.RequestCtx
			ctx.Init(&req, &net.TCPAddr{IP: net.IPv4(192, 0, 2, 1), Port: 1234}, nil)
			app.Handler()(&ctx)
		})
	}
}
