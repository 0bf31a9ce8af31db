package fibermw_test

import (
	"net/http/httptest"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/fibermw"
)

// The same middleware mounted on a group and on one of its routes, or by
// app.Use and on a route, runs twice for the request: it charges once, or
// the client would get half the limit the policy states. Two middlewares
// (two New) still charge each.
func TestMountedTwiceChargesOnce(t *testing.T) {
	newLimit := func(n int64) fiber.Handler {
		l, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(n).Using(core.SlidingLog)})
		require.NoError(t, err)
		h, err := fibermw.New(l)
		require.NoError(t, err)
		return h
	}
	codes := func(app *fiber.App, path string, n int) []int {
		var cs []int
		for i := 0; i < n; i++ {
			resp, err := app.Test(httptest.NewRequest("GET", path, nil))
			require.NoError(t, err)
			resp.Body.Close()
			cs = append(cs, resp.StatusCode)
		}
		return cs
	}

	limit := newLimit(2)
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	api := app.Group("/api", limit)
	api.Get("/x", limit, func(c *fiber.Ctx) error { return c.SendString("ok") })
	assert.Equal(t, []int{200, 200, 429}, codes(app, "/api/x", 3), "group and route")

	limit = newLimit(2)
	app = fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Use(limit)
	app.Get("/y", limit, func(c *fiber.Ctx) error { return c.SendString("ok") })
	assert.Equal(t, []int{200, 200, 429}, codes(app, "/y", 3), "app.Use and route")

	// Two middlewares, each over its own store: each charges, and the
	// route's limit of 2 stops the third request the app's 3 allows.
	app = fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Use(newLimit(3))
	app.Get("/z", newLimit(2), func(c *fiber.Ctx) error { return c.SendString("ok") })
	assert.Equal(t, []int{200, 200, 429}, codes(app, "/z", 3), "two middlewares")
}
