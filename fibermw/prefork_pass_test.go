package fibermw_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/fibermw"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

// WithPassUnclassified lets through requests that have no key or no
// limiter; a request whose chosen limiter a Prefork child refuses has
// both, and passing it would leave it unlimited, worse than limited once
// per child: it is still answered 400.
func TestPreforkChildRefusedChoiceIsNotPassed(t *testing.T) {
	asPreforkChild(t)
	local := memoryLimiter(t)
	var events []ratewindow.Event
	limit, err := fibermw.New(nil,
		ratewindow.WithLimiterFunc(func(keyfuncs.Request, string) (*core.Limiter, error) { return local, nil }),
		ratewindow.WithPassUnclassified(),
		ratewindow.WithOnDecision(func(ev ratewindow.Event) { events = append(events, ev) }))
	require.NoError(t, err)
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Get("/", limit, func(c *fiber.Ctx) error { return c.SendString("ok") })
	for range 10 {
		resp, err := app.Test(httptest.NewRequest(http.MethodGet, "/", nil))
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
	}
	require.Len(t, events, 10)
	assert.Equal(t, ratewindow.UnclassifiedRejected, events[0].Outcome)
	assert.ErrorIs(t, events[0].Err, ratewindow.ErrNoLimiter)
	assert.ErrorContains(t, events[0].Err, "Prefork child")
}
