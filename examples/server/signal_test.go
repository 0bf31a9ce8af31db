package main

import (
	"bytes"
	"context"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSecondSignal: a second SIGINT or SIGTERM during the graceful
// shutdown ends the process at once, with status 1 and a line that says
// so, instead of waiting for the shutdown. A connection that has sent
// nothing holds the shutdown (net/http waits for a new connection's
// first request for five seconds, as long as the grace period).
func TestSecondSignal(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			p := start(t, "-admin-addr", "")
			addr := strings.TrimPrefix(p.url, "http://")
			hold, err := net.Dial("tcp", addr)
			require.NoError(t, err)
			defer hold.Close()
			// One listener, one accepting loop, connections taken in the
			// order they came: once this request is answered, hold has
			// been accepted, and the shutdown waits for it.
			assert.Equal(t, ok, get(t, p.url+"/healthz", nil).status)
			client.CloseIdleConnections()

			require.NoError(t, p.cmd.Process.Signal(sig))
			// The shutdown has begun once the listener is closed.
			eventually(t, "listener closed", func() bool {
				c, err := net.DialTimeout("tcp", addr, time.Second)
				if err != nil {
					return true
				}
				_ = c.Close()
				return false
			})
			code, rest := p.stop(t, sig)
			assert.Equal(t, 1, code)
			assert.Empty(t, rest)
			assert.Equal(t, "server: "+sig.String()+" during the shutdown: exiting at once\n", p.stderr.String())
		})
	}
}

// TestSignalDuringStart: a SIGINT or SIGTERM that came while the server
// was starting (a Redis that does not answer holds the start for
// seconds) ends it before it binds, with status 0 and nothing printed,
// rather than bind and print "listening on", which says it is ready, only
// to shut down.
func TestSignalDuringStart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"-addr", "127.0.0.1:0", "-admin-addr", "127.0.0.1:0"}, &stdout, &stderr)
	assert.Equal(t, 0, code)
	assert.Empty(t, stdout.String(), "bound after the signal")
	assert.Empty(t, stderr.String())
}
