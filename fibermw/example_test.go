package fibermw_test

import (
	"fmt"
	"net/http/httptest"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/fibermw"
	"github.com/ratewindow/ratewindow/internal/clocktest"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

// Two requests per minute per API key (per client IP without one). The
// fake clock only makes the output repeatable; leave WithClock out in
// production.
func ExampleNew() {
	clock := clocktest.New(time.UnixMilli(1_800_000_000_000))
	limiter, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(2)}, core.WithClock(clock))
	if err != nil {
		panic(err)
	}
	limit, err := fibermw.New(limiter,
		ratewindow.WithKeyFunc(keyfuncs.Header("X-API-Key", keyfuncs.RemoteIP)),
	)
	if err != nil {
		panic(err)
	}
	app := fiber.New()
	app.Use(limit)
	app.Get("/api/items", func(c *fiber.Ctx) error { return c.SendString("ok\n") })

	for range 3 {
		req := httptest.NewRequest(fiber.MethodGet, "/api/items", nil)
		req.Header.Set("X-API-Key", "k-123")
		resp, err := app.Test(req)
		if err != nil {
			panic(err)
		}
		resp.Body.Close()
		fmt.Printf("%d RateLimit: %s Retry-After: %q\n",
			resp.StatusCode, resp.Header.Get("RateLimit"), resp.Header.Get("Retry-After"))
	}
	// Output:
	// 200 RateLimit: "1m";r=1;t=120 Retry-After: ""
	// 200 RateLimit: "1m";r=0;t=120 Retry-After: ""
	// 429 RateLimit: "1m";r=0;t=90 Retry-After: "90"
}

// ratewindow.WithSkip plays the part of Fiber's usual Next: here health
// checks are never limited nor counted.
func ExampleNew_skip() {
	clock := clocktest.New(time.UnixMilli(1_800_000_000_000))
	limiter, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(2)}, core.WithClock(clock))
	if err != nil {
		panic(err)
	}
	limit, err := fibermw.New(limiter, ratewindow.WithSkip(func(r keyfuncs.Request) bool { return r.Path() == "/healthz" }))
	if err != nil {
		panic(err)
	}
	app := fiber.New()
	app.Use(limit)
	app.Get("/healthz", func(c *fiber.Ctx) error { return c.SendStatus(fiber.StatusNoContent) })

	for range 3 {
		resp, err := app.Test(httptest.NewRequest(fiber.MethodGet, "/healthz", nil))
		if err != nil {
			panic(err)
		}
		resp.Body.Close()
		fmt.Println(resp.StatusCode, resp.Header.Get("RateLimit") == "")
	}
	// Output:
	// 204 true
	// 204 true
	// 204 true
}
