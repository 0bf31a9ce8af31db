package main

import (
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/internal/exampletest"
)

func TestRoutes(t *testing.T) {
	h, err := newServer()
	require.NoError(t, err)
	exampletest.CheckServer(t, h)
}

// TestSlowClientClosed: the server e.Start runs bounds its connections.
func TestSlowClientClosed(t *testing.T) {
	e, err := newServer()
	require.NoError(t, err)
	e.HideBanner, e.HidePort = true, true
	e.Listener, err = net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go func() { _ = e.Start("") }()
	t.Cleanup(func() { _ = e.Close() })
	exampletest.CheckSlowClientClosed(t, e.Listener.Addr().String(), 20*time.Second)
}
