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

// Header names are case-insensitive. With DisableHeaderNormalizing, Fiber
// keeps them as received and looks them up as given, so a proxy that
// writes "x-forwarded-for" (HAProxy, Envoy) or a client that sends
// "x-api-key" went unseen: every client behind the proxy shared its key.
func TestHeadersMatchAnyCaseWithoutNormalizing(t *testing.T) {
	ip, err := keyfuncs.NewClientIP(keyfuncs.ClientIPConfig{TrustedProxies: []string{"0.0.0.0/32"}}) // app.Test's peer
	require.NoError(t, err)
	for _, disable := range []bool{false, true} {
		for _, tt := range []struct {
			name string
			kf   keyfuncs.KeyFunc
			want string
		}{
			{"api key", keyfuncs.Header("X-Api-Key", nil), "hdr:x-api-key:k1"},
			{"client ip", ip, "ip:203.0.113.7"},
		} {
			l, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(100)})
			require.NoError(t, err)
			var keys []string
			limit, err := fibermw.New(l, ratewindow.WithKeyFunc(tt.kf),
				ratewindow.WithOnDecision(func(ev ratewindow.Event) { keys = append(keys, ev.Key) }))
			require.NoError(t, err)
			app := fiber.New(fiber.Config{DisableStartupMessage: true, DisableHeaderNormalizing: disable})
			app.Get("/", limit, func(c *fiber.Ctx) error { return nil })

			r := httptest.NewRequest("GET", "/", nil)
			r.Header["x-api-key"] = []string{"k1"}
			// A client's line, then the line the proxy appended.
			r.Header["X-Forwarded-For"] = []string{"198.51.100.1"}
			r.Header["x-forwarded-for"] = []string{"203.0.113.7"}
			resp, err := app.Test(r)
			require.NoError(t, err)
			resp.Body.Close()
			assert.Equal(t, []string{tt.want}, keys, "%s, normalizing disabled: %v", tt.name, disable)
		}
	}
}
