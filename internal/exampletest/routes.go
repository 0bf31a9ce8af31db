package exampletest

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Do sends one request to the example program (with the X-API-Key header
// when apiKey is not empty) and returns the response, its body closed.
type Do func(method, path, apiKey string) *http.Response

// CheckRoutes checks the routes every example program serves: five logins
// per client, then 429 with Retry-After; /api limited by API key with both
// of its policies advertised; /healthz never limited.
func CheckRoutes(t *testing.T, do Do) {
	t.Helper()
	for i := range 5 {
		assert.Equal(t, http.StatusOK, do(http.MethodPost, "/login", "").StatusCode, "login %d", i)
	}
	denied := do(http.MethodPost, "/login", "")
	assert.Equal(t, http.StatusTooManyRequests, denied.StatusCode)
	assert.NotEmpty(t, denied.Header.Get("Retry-After"))

	api := do(http.MethodGet, "/api/items", "key-1")
	assert.Equal(t, http.StatusOK, api.StatusCode)
	assert.True(t, strings.HasPrefix(api.Header.Get("RateLimit"), `"api-`), api.Header.Get("RateLimit"))
	assert.Contains(t, api.Header.Get("RateLimit-Policy"), `"api-hourly";q=1000;w=3600`)

	// A key the service does not know earns no quota of its own: a client
	// that sends a new one on every request still meets its address's limit.
	denials := 0
	for i := range 30 {
		if do(http.MethodGet, "/api/items", fmt.Sprintf("made-up-%d", i)).StatusCode == http.StatusTooManyRequests {
			denials++
		}
	}
	assert.Positive(t, denials, "30 made-up API keys from one client within a second: none denied")

	for range 10 {
		resp := do(http.MethodGet, "/healthz", "")
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		assert.Empty(t, resp.Header.Get("RateLimit"))
	}
}

// CheckServer runs CheckRoutes over real HTTP round trips to h, served on a
// loopback httptest server for the length of the test.
func CheckServer(t *testing.T, h http.Handler) {
	t.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	CheckRoutes(t, func(method, path, apiKey string) *http.Response {
		req, err := http.NewRequest(method, srv.URL+path, nil)
		require.NoError(t, err)
		if apiKey != "" {
			req.Header.Set("X-API-Key", apiKey)
		}
		resp, err := srv.Client().Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		return resp
	})
}

// CheckSlowClientClosed checks that the example server listening on addr
// bounds a connection: a client that sends half a request and then
// nothing is disconnected by the server within the given time, instead
// of holding a connection and a goroutine for good.
func CheckSlowClientClosed(t *testing.T, addr string, within time.Duration) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer conn.Close()
	_, err = io.WriteString(conn, "POST /login HTTP/1.1\r\nHost: example\r\n")
	require.NoError(t, err)
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(within)))
	_, err = io.Copy(io.Discard, conn) // returns when the server closes
	var timeout net.Error
	if errors.As(err, &timeout) && timeout.Timeout() {
		t.Fatalf("the server kept a half-sent request's connection open for %v", within)
	}
}
