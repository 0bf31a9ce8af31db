// Command fiber shows ratewindow on Fiber: /login limited by client IP on
// an exact sliding log (5 per 5 minutes), the /api group limited by API key
// if the service issued it, else by client IP, on a sliding counter (10 per
// second and 1000 per hour), /healthz not limited.
package main

import (
	"log"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	fiberrecover "github.com/gofiber/fiber/v2/middleware/recover"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/fibermw"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

func main() {
	app, err := newApp()
	if err != nil {
		log.Fatal(err)
	}
	log.Fatal(app.Listen("127.0.0.1:8080"))
}

func newApp() (*fiber.App, error) {
	// The memory store counts in this process only: run several instances
	// and a client gets the limit once per instance. Share core/redisstore
	// between them instead.
	store := memory.New()
	login, err := core.NewLimiter(store, []core.Policy{core.Per(5, 5*time.Minute).Using(core.SlidingLog).Named("login")})
	if err != nil {
		return nil, err
	}
	api, err := core.NewLimiter(store, []core.Policy{core.PerSecond(10).Named("api-burst"), core.PerHour(1000).Named("api-hourly")})
	if err != nil {
		return nil, err
	}

	// RemoteIP is the peer address: behind a reverse proxy, the proxy's,
	// shared by every client. There, key by keyfuncs.NewClientIP instead.
	limitLogin, err := fibermw.New(login, ratewindow.WithKeyFunc(keyfuncs.RemoteIP))
	if err != nil {
		return nil, err
	}
	limitAPI, err := fibermw.New(api, ratewindow.WithKeyFunc(byAPIKey()))
	if err != nil {
		return nil, err
	}

	app := fiber.New(fiber.Config{
		// Bound every connection: without a ReadTimeout a slow or silent
		// client holds one for good, and a few hundred of them the
		// service, without ever meeting the rate limit, which runs only
		// once a request has arrived.
		ReadTimeout: 10 * time.Second,
		IdleTimeout: 60 * time.Second,
		// Fiber reads a body in full, up to BodyLimit (4 MiB by default),
		// before the limiter runs: that is what a denied upload costs.
		// Keep it to the largest body the routes take (a login form).
		BodyLimit: 16 << 10,
	})
	// fasthttp does not recover a handler's panic, as net/http does: one
	// would end the process. This answers 500 instead.
	app.Use(fiberrecover.New())
	app.Post("/login", limitLogin, func(c *fiber.Ctx) error { return c.SendString("welcome\n") })
	apiGroup := app.Group("/api", limitAPI)
	apiGroup.Get("/items", func(c *fiber.Ctx) error { return c.SendString("data\n") })
	app.Get("/healthz", func(c *fiber.Ctx) error { return c.SendString("ok\n") })
	return app, nil
}

// apiKeys stands for the service's record of the API keys it issued.
var apiKeys = map[string]bool{"key-1": true, "key-2": true}

// byAPIKey keys a request by its X-API-Key if that key was issued, else by
// the client's address. Keyed by the header as sent, a client that makes up
// a new key for every request would never meet a limit. Where an
// authentication middleware runs before the limiter, key by the identity it
// found instead (keyfuncs.FromContext).
func byAPIKey() keyfuncs.KeyFunc {
	byKey := keyfuncs.Header("X-API-Key", nil)
	return func(r keyfuncs.Request) (string, error) {
		if apiKeys[strings.TrimSpace(r.Header("X-API-Key"))] {
			return byKey(r)
		}
		return keyfuncs.RemoteIP(r)
	}
}
