package main

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
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
// a login whose body would be over the app's BodyLimit is refused (413)
// before the body is read. Only the request's head is sent: sending the
// body would race the server closing the connection.
func TestLoginBodyLimit(t *testing.T) {
	conn, err := net.Dial("tcp", serve(t))
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.SetDeadline(time.Now().Add(20*time.Second)))
	_, err = io.WriteString(conn, "POST /login HTTP/1.1\r\nHost: t\r\nContent-Length: 1048576\r\n\r\n")
	require.NoError(t, err)
	line, err := bufio.NewReader(conn).ReadString('\n')
	require.NoError(t, err)
	assert.Equal(t, "HTTP/1.1 413 Request Entity Too Large\r\n", line)
}
