package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/internal/exampletest"
)

func TestRoutes(t *testing.T) {
	app, err := newApp()
	require.NoError(t, err)
	exampletest.CheckRoutes(t, func(method, path, apiKey string) *http.Response {
		req := httptest.NewRequest(method, path, nil)
		if apiKey != "" {
			req.Header.Set("X-API-Key", apiKey)
		}
		resp, err := app.Test(req)
		require.NoError(t, err)
		resp.Body.Close()
		return resp
	})
}

// TestSlowClientClosed: the app bounds its connections.
func TestSlowClientClosed(t *testing.T) {
	exampletest.CheckSlowClientClosed(t, serve(t), 20*time.Second)
}

// serve serves a new app on a loopback port and returns its address.
func serve(t *testing.T) string {
	t.Helper()
	app, err := newApp()
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go func() { _ = app.Listener(ln) }()
	t.Cleanup(func() { _ = app.Shutdown() })
	return ln.Addr().String()
}

// TestPanicAnswers500: a handler's panic is answered 500; fasthttp alone
// would let it end the process.
func TestPanicAnswers500(t *testing.T) {
	app, err := newApp()
	require.NoError(t, err)
	app.Get("/boom", func(*fiber.Ctx) error { panic("boom") })
	resp, err := app.Test(httptest.NewRequest(http.MethodGet, "/boom", nil))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusInternalServerError, resp.StatusCode)
}

// TestLoginBodyLimit: Fiber reads a body in full before the limiter runs;
// a login body over the app's BodyLimit is refused unread (413).
func TestLoginBodyLimit(t *testing.T) {
	addr := serve(t)
	resp, err := http.Post("http://"+addr+"/login", "text/plain", strings.NewReader(strings.Repeat("x", 1<<20)))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)
}
