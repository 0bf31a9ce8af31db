package fibermw_test

import (
	"net"
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
	"github.com/ratewindow/ratewindow/internal/middleware/adaptertest"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

// serve runs app on a fresh 127.0.0.1 listener until the test ends.
func serve(t *testing.T, app *fiber.App) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = app.Listener(ln)
	}()
	t.Cleanup(func() {
		// Shutdown stops a server that is serving; one whose goroutine has
		// not reached Serve yet (a test that ends before its first
		// request) would then serve forever: closing the listener ends it.
		_ = app.Shutdown()
		_ = ln.Close()
		<-done
	})
	return "http://" + ln.Addr().String()
}

func mount(t *testing.T, l *core.Limiter, opts []ratewindow.Option) (string, error) {
	limit, err := fibermw.New(l, opts...)
	if err != nil {
		return "", err
	}
	return routes(t, limit), nil
}

func mountLimit(t *testing.T, l *core.Limiter) string { return routes(t, fibermw.Limit(l)) }

// mountAll mounts the middleware with app.Use.
func mountAll(t *testing.T, l *core.Limiter, opts []ratewindow.Option) (string, error) {
	limit, err := fibermw.New(l, opts...)
	if err != nil {
		return "", err
	}
	ok := func(c *fiber.Ctx) error { return c.SendString("ok\n") }
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Use(limit)
	app.Get("/", ok)
	app.Get("/items/:id", ok)
	app.Get("/healthz", ok)
	return serve(t, app), nil
}

func routes(t *testing.T, limit fiber.Handler) string {
	ok := func(c *fiber.Ctx) error { return c.SendString("ok\n") }
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Get("/", limit, ok)
	app.Get("/items/:id", limit, ok)
	app.Get("/healthz", ok)
	return serve(t, app)
}

func TestAdapter(t *testing.T) {
	adaptertest.Run(t, adaptertest.Adapter{Name: "fiber", Mount: mount, MountLimit: mountLimit, MountAll: mountAll, ItemsRoute: "/items/:id"})
}

// Fiber's Next convention, served by ratewindow.WithSkip: a skipped request
// is not counted.
func TestSkip(t *testing.T) {
	l, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(1).Using(core.SlidingLog)})
	require.NoError(t, err)
	limit, err := fibermw.New(l, ratewindow.WithSkip(func(r keyfuncs.Request) bool { return r.Header("X-Internal") == "yes" }))
	require.NoError(t, err)
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Get("/", limit, func(c *fiber.Ctx) error { return c.SendString("ok\n") })
	status := func(internal bool) int {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		if internal {
			req.Header.Set("X-Internal", "yes")
		}
		resp, err := app.Test(req)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, internal, resp.Header.Get("RateLimit") == "", "skipped requests get no fields")
		return resp.StatusCode
	}
	assert.Equal(t, []int{200, 200, 200, 200, 429}, []int{status(true), status(true), status(true), status(false), status(false)})
}
