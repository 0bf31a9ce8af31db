package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFiberHandlerPanic: a handler added to the Fiber app that panics
// answers 500, and the server goes on serving. net/http (and so Gin and
// Echo) survives a handler's panic by itself; fasthttp does not, and one
// panic would end the whole process.
func TestFiberHandlerPanic(t *testing.T) {
	cfg, err := parseFlags([]string{"-framework", "fiber", "-addr", "127.0.0.1:0", "-admin-addr", ""})
	require.NoError(t, err)
	srv, err := build(cfg)
	require.NoError(t, err)
	t.Cleanup(srv.release)
	fa, isFiber := srv.public.(*fiberApp)
	require.True(t, isFiber)
	fa.app.Get("/panic", func(*fiber.Ctx) error { panic("a bug in a handler") })

	ln, err := net.Listen("tcp", cfg.addr)
	require.NoError(t, err)
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = fa.serve(ln)
	}()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
		defer cancel()
		_ = fa.shutdown(ctx)
		<-served
	})

	status := func(path string) int {
		resp, err := client.Get("http://" + ln.Addr().String() + path)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	assert.Equal(t, http.StatusInternalServerError, status("/panic"))
	assert.Equal(t, http.StatusOK, status("/healthz"))
}
