package fibermw_test

import (
	"net"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/fibermw"
	"github.com/ratewindow/ratewindow/internal/middleware/adaptertest"
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
		_ = app.Shutdown()
		<-done
	})
	return "http://" + ln.Addr().String()
}

func mount(t *testing.T, l *core.Limiter, opts []ratewindow.Option) (string, error) {
	limit, err := fibermw.New(l, opts...)
	if err != nil {
		return "", err
	}
	ok := func(c *fiber.Ctx) error { return c.SendString("ok\n") }
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Get("/", limit, ok)
	app.Get("/items/:id", limit, ok)
	app.Get("/healthz", ok)
	return serve(t, app), nil
}

func TestAdapter(t *testing.T) {
	adaptertest.Run(t, adaptertest.Adapter{Name: "fiber", Mount: mount, ItemsRoute: "/items/:id"})
}
