package fibermw_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/config"
	"github.com/ratewindow/ratewindow/core/redisstore"
	"github.com/ratewindow/ratewindow/fibermw"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// preforkRules is a file whose one route is observed, but enforced for
// tenant acme.
const preforkRules = `{"tenant_header": "X-Tenant", "routes": [{"name": "all", "match": ["*"], "key": "header:X-Client",
  "mode": "observe", "tenants": {"acme": "enforce"}, "policies": [{"limit": 5, "window": "1m"}]}]}`

// preforkApp serves GET / behind New(nil, opts...) in a Prefork child
// and returns a func that sends one request as tenant and gives its
// status.
func preforkApp(t *testing.T, opts ...ratewindow.Option) func(tenant string) int {
	t.Helper()
	limit, err := fibermw.New(nil, opts...)
	require.NoError(t, err)
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Get("/", limit, func(c *fiber.Ctx) error { return c.SendString("ok") })
	return func(tenant string) int {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.Header.Set("X-Client", "c1")
		if tenant != "" {
			req.Header.Set("X-Tenant", tenant)
		}
		resp, err := app.Test(req)
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
}

// In a Prefork child, a config.Set on its default memory store has no
// limiter a request may use, but the file still gives each request its
// mode and key: an observed request passes (observe-only never refuses),
// an enforced one is answered 400 even with WithPassUnclassified.
func TestPreforkChildConfigKeepsMode(t *testing.T) {
	asPreforkChild(t)
	path := filepath.Join(t.TempDir(), "limits.json")
	require.NoError(t, os.WriteFile(path, []byte(preforkRules), 0o600))
	rules, err := config.Load(path)
	require.NoError(t, err)
	var events []ratewindow.Event
	get := preforkApp(t, append(rules.Options(), ratewindow.WithPassUnclassified(),
		ratewindow.WithOnDecision(func(ev ratewindow.Event) { events = append(events, ev) }))...)

	assert.Equal(t, http.StatusOK, get(""), "observed")
	assert.Equal(t, http.StatusBadRequest, get("acme"), "enforced")
	require.Len(t, events, 2)
	for i, observed := range []bool{true, false} {
		assert.Equal(t, "all:hdr:x-client:c1", events[i].Key)
		assert.Equal(t, observed, events[i].ObserveOnly)
		assert.ErrorContains(t, events[i].Err, "Prefork child")
	}
	assert.Equal(t, ratewindow.UnclassifiedPassed, events[0].Outcome)
	assert.Equal(t, ratewindow.UnclassifiedRejected, events[1].Outcome)
}

// On a store the children share, a config.Set's limiters are used in a
// Prefork child, with the file's mode.
func TestPreforkChildConfigOnSharedStore(t *testing.T) {
	asPreforkChild(t)
	store, err := redisstore.New(testredis.Standalone(t), redisstore.WithPrefix(testredis.Prefix(t)))
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "limits.json")
	require.NoError(t, os.WriteFile(path, []byte(preforkRules), 0o600))
	rules, err := config.Load(path, config.WithStore(store))
	require.NoError(t, err)
	var events []ratewindow.Event
	get := preforkApp(t, append(rules.Options(),
		ratewindow.WithOnDecision(func(ev ratewindow.Event) { events = append(events, ev) }))...)

	for range 5 {
		require.Equal(t, http.StatusOK, get("acme"))
	}
	assert.Equal(t, http.StatusTooManyRequests, get("acme"), "enforced, over the limit")
	assert.Equal(t, http.StatusOK, get(""), "observed, over the limit")
	require.Len(t, events, 7)
	assert.Equal(t, ratewindow.Denied, events[5].Outcome)
	assert.Equal(t, ratewindow.WouldDeny, events[6].Outcome)
	assert.True(t, events[6].ObserveOnly)
}
