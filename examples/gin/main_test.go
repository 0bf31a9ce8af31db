package main

import (
	"net"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/internal/exampletest"
)

func init() { gin.SetMode(gin.TestMode) }

func TestRoutes(t *testing.T) {
	h, err := newRouter()
	require.NoError(t, err)
	exampletest.CheckServer(t, h)
}

// TestSlowClientClosed: the server main starts bounds its connections.
func TestSlowClientClosed(t *testing.T) {
	h, err := newRouter()
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := newServer("", h)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	exampletest.CheckSlowClientClosed(t, ln.Addr().String(), 20*time.Second)
}
