package client_test

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/client"
)

// http.Client.CloseIdleConnections reaches the base transport through the
// round tripper: at shutdown (or between tests) the keep-alive
// connections it holds, and their goroutines, are closed, as they are
// without the round tripper in between.
func TestCloseIdleConnectionsReachesTheBase(t *testing.T) {
	var once sync.Once
	closed := make(chan struct{})
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("RateLimit", `"default";r=5;t=1`)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateClosed {
			once.Do(func() { close(closed) })
		}
	}
	srv.Start()
	defer srv.Close()

	base := &http.Transport{}
	defer base.CloseIdleConnections()
	rt, err := client.New(base)
	require.NoError(t, err)
	c := &http.Client{Transport: rt, Timeout: 5 * time.Second}

	resp, err := c.Get(srv.URL)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	require.NoError(t, resp.Body.Close())

	c.CloseIdleConnections()
	select {
	case <-closed:
	case <-time.After(2 * time.Second):
		t.Fatal("the idle connection is still open: CloseIdleConnections did not reach the base transport")
	}
}
