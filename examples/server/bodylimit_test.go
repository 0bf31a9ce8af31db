package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFiberBodyLimit: Fiber reads a request's whole body before the
// limiter runs, up to its BodyLimit (4 MiB unless set), so a client the
// limiter denies has uploaded that much. The demo's routes take no body:
// a body over bodyLimit is refused (413) before it is read, one within it
// is served.
func TestFiberBodyLimit(t *testing.T) {
	p := start(t, "-framework", "fiber")
	addr := strings.TrimPrefix(p.url, "http://")
	// Only the head of a request whose body would be too large: the answer
	// comes before any of the body is sent (sending it would race the
	// server closing the connection).
	assert.Equal(t, "HTTP/1.1 413 Request Entity Too Large", announce(t, addr, bodyLimit+1))
	assert.Equal(t, "HTTP/1.1 413 Request Entity Too Large", announce(t, addr, 1<<30))

	req, err := http.NewRequest(http.MethodGet, p.url+"/", bytes.NewReader(make([]byte, bodyLimit)))
	require.NoError(t, err)
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	assert.Equal(t, http.StatusOK, resp.StatusCode, "a body within the limit")
}

// announce sends the head of a GET / with a body of n bytes to addr, but
// none of the body, and returns the status line of the answer.
func announce(t *testing.T, addr string, n int) string {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.SetDeadline(time.Now().Add(waitLimit)))
	_, err = fmt.Fprintf(conn, "GET / HTTP/1.1\r\nHost: t\r\nContent-Length: %d\r\n\r\n", n)
	require.NoError(t, err)
	line, err := bufio.NewReader(conn).ReadString('\n')
	require.NoError(t, err)
	return strings.TrimRight(line, "\r\n")
}
