package fibermw_test

import (
	"fmt"
	"net/http/httptest"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/fibermw"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

// Two requests per minute per issued API key, per client IP for
// any other request: keyed by the header as sent, a client that made up a
// new key for every request would never meet the limit. The made-up keys
// below share the client's one quota.
//
// Each response carries a RateLimit field such as "1m";r=1;t=97: the
// policy, the requests left (r) and the seconds until the quota is whole
// again (t); a denial adds Retry-After. The seconds depend on when in the
// minute the requests run, so the example prints the rest.
func ExampleNew() {
	limiter, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(2)})
	if err != nil {
		panic(err)
	}
	issued := map[string]bool{"k-123": true} // the API keys the service issued
	byKey := keyfuncs.Header("X-API-Key", nil)
	limit, err := fibermw.New(limiter, ratewindow.WithKeyFunc(func(r keyfuncs.Request) (string, error) {
		if issued[strings.TrimSpace(r.Header("X-API-Key"))] {
			return byKey(r)
		}
		return keyfuncs.RemoteIP(r) // a made-up key is no quota of its own
	}))
	if err != nil {
		panic(err)
	}
	app := fiber.New()
	app.Use(limit)
	app.Get("/api/items", func(c *fiber.Ctx) error { return c.SendString("ok\n") })

	for _, apiKey := range []string{"k-123", "k-123", "k-123", "made-up-1", "made-up-2", "made-up-3"} {
		req := httptest.NewRequest(fiber.MethodGet, "/api/items", nil)
		req.Header.Set("X-API-Key", apiKey)
		resp, err := app.Test(req)
		if err != nil {
			panic(err)
		}
		resp.Body.Close()
		quota, _, _ := strings.Cut(resp.Header.Get("RateLimit"), ";t=")
		fmt.Println(resp.StatusCode, quota, "Retry-After:", resp.Header.Get("Retry-After") != "")
	}
	// Output:
	// 200 "1m";r=1 Retry-After: false
	// 200 "1m";r=0 Retry-After: false
	// 429 "1m";r=0 Retry-After: true
	// 200 "1m";r=1 Retry-After: false
	// 200 "1m";r=0 Retry-After: false
	// 429 "1m";r=0 Retry-After: true
}

// ratewindow.WithSkip plays the part of Fiber's usual Next: here health
// checks are never limited nor counted.
func ExampleNew_skip() {
	limiter, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(2)})
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
