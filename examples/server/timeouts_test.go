package main

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConnectionsAreBounded: on both listeners of every framework, a
// kept-alive connection left idle, and a request whose announced body
// never comes, are closed by the server once their timeout has passed,
// instead of holding a connection and a goroutine for good. The timeouts
// are made short; the test waits for the server to close the connection.
func TestConnectionsAreBounded(t *testing.T) {
	cases := []struct {
		name   string
		header string // after the request line
		idle   bool   // a whole request: read its response, then wait
	}{
		{"idle keep-alive", "Host: t\r\n\r\n", true},
		{"body never sent", "Host: t\r\nContent-Length: 10\r\n\r\n", false},
	}
	for _, fw := range frameworks {
		t.Run(fw, func(t *testing.T) {
			public, admin := serveBoth(t, fw, connTimeouts{read: 200 * time.Millisecond, idle: 200 * time.Millisecond})
			for _, ln := range []struct{ name, addr, path string }{{"public", public, "/healthz"}, {"admin", admin, "/metrics"}} {
				for _, c := range cases {
					t.Run(ln.name+"/"+c.name, func(t *testing.T) {
						conn, err := net.Dial("tcp", ln.addr)
						require.NoError(t, err)
						defer conn.Close()
						require.NoError(t, conn.SetDeadline(time.Now().Add(waitLimit)))
						_, err = io.WriteString(conn, "GET "+ln.path+" HTTP/1.1\r\n"+c.header)
						require.NoError(t, err)
						br := bufio.NewReader(conn)
						if c.idle {
							resp, err := http.ReadResponse(br, nil)
							require.NoError(t, err)
							_, err = io.Copy(io.Discard, resp.Body)
							require.NoError(t, err)
							_ = resp.Body.Close()
							require.Equal(t, http.StatusOK, resp.StatusCode)
						}
						// Whatever else comes (a response, an error page), the
						// server must end the connection: EOF or a reset, not
						// our own deadline.
						_, err = io.Copy(io.Discard, br)
						assert.False(t, errors.Is(err, os.ErrDeadlineExceeded),
							"the server kept the connection open for %v: %v", waitLimit, err)
					})
				}
			}
		})
	}
}

// serveBoth builds the memory-store server of framework with timeouts,
// serves its two listeners on free loopback ports until the test ends,
// and returns their addresses.
func serveBoth(t *testing.T, framework string, timeouts connTimeouts) (public, admin string) {
	t.Helper()
	cfg, err := parseFlags([]string{"-framework", framework, "-addr", "127.0.0.1:0", "-admin-addr", "127.0.0.1:0"})
	require.NoError(t, err)
	cfg.timeouts = timeouts
	srv, err := build(cfg)
	require.NoError(t, err)
	t.Cleanup(srv.release)
	for _, s := range []struct {
		a    app
		addr *string
	}{{srv.public, &public}, {srv.admin, &admin}} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		*s.addr = ln.Addr().String()
		served := make(chan struct{})
		go func() {
			defer close(served)
			_ = s.a.serve(ln)
		}()
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
			defer cancel()
			_ = s.a.shutdown(ctx)
			<-served
		})
	}
	return public, admin
}
