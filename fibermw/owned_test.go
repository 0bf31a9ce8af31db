package fibermw_test

import (
	"io"
	"net/http"
	"sync"
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

// Fiber reuses a connection's request buffers for the next request. Keys,
// paths and header values kept past the handler (in the store, in events)
// must not change when it does.
func TestStringsOutliveTheRequest(t *testing.T) {
	var (
		mu     sync.Mutex
		events []ratewindow.Event
	)
	l, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(2).Using(core.SlidingLog)})
	require.NoError(t, err)
	limit, err := fibermw.New(l,
		// The header value itself, not a copy: Fiber reuses its buffers.
		ratewindow.WithKeyFunc(func(r keyfuncs.Request) (string, error) { return r.Header("X-Client"), nil }),
		ratewindow.WithOnDecision(func(ev ratewindow.Event) {
			mu.Lock()
			events = append(events, ev)
			mu.Unlock()
		}))
	require.NoError(t, err)
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Get("/:name", limit, func(c *fiber.Ctx) error { return c.SendString("ok\n") })
	base := serve(t, app)

	// One connection, so every request reuses the same server buffers.
	tr := &http.Transport{MaxConnsPerHost: 1}
	client := &http.Client{Transport: tr}
	t.Cleanup(tr.CloseIdleConnections)
	send := func(path, who string) int {
		req, err := http.NewRequest(http.MethodGet, base+path, nil)
		require.NoError(t, err)
		req.Header.Set("X-Client", who)
		resp, err := client.Do(req)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	assert.Equal(t, 200, send("/aaaa", "1111"))
	assert.Equal(t, 200, send("/bbbb", "2222"))
	assert.Equal(t, 200, send("/cccc", "1111"))
	assert.Equal(t, 429, send("/dddd", "1111"), "1111 has used its two")
	assert.Equal(t, 200, send("/eeee", "2222"), "2222 has one left")

	mu.Lock()
	defer mu.Unlock()
	require.Len(t, events, 5)
	want := []struct{ key, path string }{{"1111", "/aaaa"}, {"2222", "/bbbb"}, {"1111", "/cccc"}, {"1111", "/dddd"}, {"2222", "/eeee"}}
	for i, w := range want {
		assert.Equal(t, w.key, events[i].Key, "event %d", i)
		assert.Equal(t, w.path, events[i].Path, "event %d", i)
		assert.Equal(t, "/:name", events[i].Route, "event %d", i)
		assert.Equal(t, "GET", events[i].Method, "event %d", i)
	}
}
