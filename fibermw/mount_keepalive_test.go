package fibermw_test

import (
	"io"
	"net/http"
	"net/http/httptrace"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/fibermw"
)

// The mark that keeps a middleware mounted twice from charging twice lives
// in the connection's fasthttp context, which serves every request of a
// keep-alive connection: it must be gone by the next request, or that
// request (and every later one on the connection) would pass uncharged.
func TestMountedTwiceChargesEachRequestOfAConnection(t *testing.T) {
	l, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(2).Using(core.SlidingLog)})
	require.NoError(t, err)
	limit, err := fibermw.New(l)
	require.NoError(t, err)
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Use(limit)
	app.Get("/x", limit, func(c *fiber.Ctx) error { return c.SendString("ok") })
	base := serve(t, app)

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
	t.Cleanup(client.CloseIdleConnections)
	var codes []int
	reused := 0
	for i := 0; i < 3; i++ {
		trace := &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) {
			if info.Reused {
				reused++
			}
		}}
		req, err := http.NewRequest(http.MethodGet, base+"/x", nil)
		require.NoError(t, err)
		resp, err := client.Do(req.WithContext(httptrace.WithClientTrace(req.Context(), trace)))
		require.NoError(t, err)
		_, err = io.Copy(io.Discard, resp.Body)
		require.NoError(t, err)
		resp.Body.Close()
		codes = append(codes, resp.StatusCode)
	}
	require.Equal(t, 2, reused, "the three requests share one connection")
	assert.Equal(t, []int{200, 200, 429}, codes)
}
