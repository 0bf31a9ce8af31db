package fibermw_test

import (
	"context"
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

type userKey struct{}

// FromContext reads c.UserContext(), as documented: a user id put there by
// earlier middleware is the key; one kept only in c.Locals is not seen.
func TestFromContextReadsTheUserContext(t *testing.T) {
	l, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(100)})
	require.NoError(t, err)
	var keys []string
	limit, err := fibermw.New(l, ratewindow.WithKeyFunc(keyfuncs.FromContext(userKey{}, keyfuncs.Constant("anonymous"))),
		ratewindow.WithOnDecision(func(ev ratewindow.Event) { keys = append(keys, ev.Key) }))
	require.NoError(t, err)
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Use(func(c *fiber.Ctx) error {
		c.Locals(userKey{}, "7")
		if c.Get("X-User") != "" {
			c.SetUserContext(context.WithValue(c.UserContext(), userKey{}, c.Get("X-User")))
		}
		return c.Next()
	})
	app.Get("/", limit, func(c *fiber.Ctx) error { return nil })
	for _, user := range []string{"42", ""} {
		r := httptest.NewRequest("GET", "/", nil)
		r.Header.Set("X-User", user)
		resp, err := app.Test(r)
		require.NoError(t, err)
		resp.Body.Close()
	}
	assert.Equal(t, []string{"ctx:github.com/ratewindow/ratewindow/fibermw_test.userKey:42", "const:anonymous"}, keys)
}
