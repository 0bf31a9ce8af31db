package fibermw_test

import (
	"io"
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
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/core/redisstore"
	"github.com/ratewindow/ratewindow/fibermw"
	"github.com/ratewindow/ratewindow/internal/testredis"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

// asPreforkChild makes this process look like a Prefork child to Fiber
// (fiber.IsChild reads this variable) until the test ends.
func asPreforkChild(t *testing.T) { t.Setenv("FIBER_PREFORK_CHILD", "1") }

func memoryLimiter(t *testing.T) *core.Limiter {
	l, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(5)})
	require.NoError(t, err)
	return l
}

func redisLimiter(t *testing.T) *core.Limiter {
	s, err := redisstore.New(testredis.Standalone(t), redisstore.WithPrefix(testredis.Prefix(t)))
	require.NoError(t, err)
	l, err := core.NewLimiter(s, []core.Policy{core.PerMinute(5)})
	require.NoError(t, err)
	return l
}

// get serves one request to limit through app.Test and returns the status
// and body.
func get(t *testing.T, limit fiber.Handler) (int, string) {
	t.Helper()
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Get("/", limit, func(c *fiber.Ctx) error { return c.SendString("ok") })
	resp, err := app.Test(httptest.NewRequest(http.MethodGet, "/", nil))
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(body)
}

func TestPreforkChildRefusesMemoryStore(t *testing.T) {
	asPreforkChild(t)
	_, err := fibermw.New(memoryLimiter(t))
	require.ErrorIs(t, err, core.ErrInvalidConfig)
	assert.ErrorContains(t, err, "Prefork child")
	assert.ErrorContains(t, err, "core/redisstore")

	code, _ := get(t, fibermw.Limit(memoryLimiter(t)))
	assert.Equal(t, http.StatusServiceUnavailable, code, "Limit cannot fail: it serves nothing")
}

func TestPreforkChildTakesSharedStore(t *testing.T) {
	asPreforkChild(t)
	limit, err := fibermw.New(redisLimiter(t))
	require.NoError(t, err)
	code, _ := get(t, limit)
	assert.Equal(t, http.StatusOK, code)
	code, _ = get(t, fibermw.Limit(redisLimiter(t)))
	assert.Equal(t, http.StatusOK, code)
}

// Without Prefork the memory store is the single process's own.
func TestNotPreforkChildTakesMemoryStore(t *testing.T) {
	limit, err := fibermw.New(memoryLimiter(t))
	require.NoError(t, err)
	code, _ := get(t, limit)
	assert.Equal(t, http.StatusOK, code)
}

// A limiter chosen per request is not known at New: in a Prefork child a
// request for which the WithLimiterFunc function chooses a memory-backed
// one cannot be classified (400, ErrNoLimiter, the reason in Event.Err),
// never limited once per child.
func TestPreforkChildRefusesChosenMemoryStore(t *testing.T) {
	asPreforkChild(t)
	local, shared := memoryLimiter(t), redisLimiter(t)
	var events []ratewindow.Event
	limit, err := fibermw.New(nil,
		ratewindow.WithLimiterFunc(func(r keyfuncs.Request, _ string) (*core.Limiter, error) {
			if r.Header("X-Plan") == "shared" {
				return shared, nil
			}
			return local, nil
		}),
		ratewindow.WithOnDecision(func(ev ratewindow.Event) { events = append(events, ev) }))
	require.NoError(t, err)
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Get("/", limit, func(c *fiber.Ctx) error { return c.SendString("ok") })
	status := func(plan string) int {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.Header.Set("X-Plan", plan)
		resp, err := app.Test(req)
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	assert.Equal(t, http.StatusBadRequest, status("local"))
	assert.Equal(t, http.StatusOK, status("shared"))
	require.Len(t, events, 2)
	assert.Equal(t, ratewindow.UnclassifiedRejected, events[0].Outcome)
	assert.ErrorIs(t, events[0].Err, ratewindow.ErrNoLimiter)
	assert.ErrorIs(t, events[0].Err, core.ErrInvalidConfig, "a mistake in the set-up, not the client's")
	assert.ErrorContains(t, events[0].Err, "Prefork child")
	assert.Equal(t, ratewindow.Allowed, events[1].Outcome)
}

// config.Set chooses its limiters per request, on the store it was loaded
// with (a memory store by default).
func TestPreforkChildRefusesConfigOnMemoryStore(t *testing.T) {
	asPreforkChild(t)
	path := filepath.Join(t.TempDir(), "limits.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"routes": [{"name": "all", "match": ["*"], "policies": [{"limit": 5, "window": "1m"}]}]}`), 0o600))
	rules, err := config.Load(path)
	require.NoError(t, err)
	limit, err := fibermw.New(nil, rules.Options()...)
	require.NoError(t, err)
	code, body := get(t, limit)
	assert.Equal(t, http.StatusBadRequest, code)
	assert.Contains(t, body, "no_rate_limiter")
}
