package fibermw_test

import (
	"net/http/httptest"
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

// app.Get registers the handler for HEAD too: a HEAD request spends the
// GET quota of the route, or a client could double its per-route limit by
// alternating the two.
func TestHeadSpendsTheGetQuota(t *testing.T) {
	l, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(2).Using(core.SlidingLog)})
	require.NoError(t, err)
	limit, err := fibermw.New(l, ratewindow.WithKeyFunc(keyfuncs.Route))
	require.NoError(t, err)
	calls := 0
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Use(limit)
	app.Get("/search", func(c *fiber.Ctx) error { calls++; return nil })

	var codes []int
	for _, m := range []string{"GET", "HEAD", "GET", "HEAD"} {
		resp, err := app.Test(httptest.NewRequest(m, "/search", nil))
		require.NoError(t, err)
		resp.Body.Close()
		codes = append(codes, resp.StatusCode)
	}
	assert.Equal(t, []int{200, 200, 429, 429}, codes)
	assert.Equal(t, 2, calls, "the handler ran more often than the limit")
}
