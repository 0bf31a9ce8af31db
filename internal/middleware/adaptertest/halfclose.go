package adaptertest

import (
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
)

// checkHalfClose sends requests that each half-close the connection once
// sent, as some clients do, on the real Redis. net/http cancels such a
// request's context yet still writes the answer, and the Redis store gives
// up on a cancelled call uncharged: the middleware must still decide it,
// not pass it as a store failure (fail-open). Exactly the limit is served.
func checkHalfClose(t *testing.T, a Adapter) {
	const limit, sent = 2, 12
	l, err := core.NewLimiter(liveRedis(t), []core.Policy{core.PerMinute(limit).Using(core.SlidingLog)})
	require.NoError(t, err)
	base, err := a.Mount(t, l, nil)
	require.NoError(t, err)
	addr := strings.TrimPrefix(base, "http://")
	counts := map[string]int{}
	for range sent {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		require.NoError(t, c.SetDeadline(time.Now().Add(clientTimeout)))
		_, err = io.WriteString(c, "GET / HTTP/1.1\r\nHost: test\r\n\r\n")
		require.NoError(t, err)
		require.NoError(t, c.(*net.TCPConn).CloseWrite())
		b, err := io.ReadAll(c)
		_ = c.Close()
		require.NoError(t, err)
		status, _, _ := strings.Cut(string(b), "\r\n")
		counts[status]++
	}
	assert.Equal(t, map[string]int{"HTTP/1.1 200 OK": limit, "HTTP/1.1 429 Too Many Requests": sent - limit}, counts)
}
