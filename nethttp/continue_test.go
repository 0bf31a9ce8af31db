package nethttp_test

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/nethttp"
)

// A denied upload is never sent: a client that asks "Expect:
// 100-continue" gets its 429 in place of 100 Continue, since the
// middleware reads no body and net/http sends 100 Continue only when a
// handler does. An allowed one is asked for its body as usual.
func TestDeniedUploadIsNotAskedFor(t *testing.T) {
	l, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(1)})
	require.NoError(t, err)
	h := nethttp.Limit(l)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		buf := make([]byte, 512)
		for {
			if _, err := r.Body.Read(buf); err != nil {
				break
			}
		}
		_, _ = w.Write([]byte("ok\n"))
	}))
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)

	firstLine := func() string {
		c, err := net.Dial("tcp", srv.Listener.Addr().String())
		require.NoError(t, err)
		defer c.Close()
		_, err = fmt.Fprint(c, "POST /upload HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 1000000\r\n\r\n")
		require.NoError(t, err)
		require.NoError(t, c.SetReadDeadline(time.Now().Add(5*time.Second)))
		line, err := bufio.NewReader(c).ReadString('\n')
		require.NoError(t, err)
		return line
	}
	assert.Equal(t, "HTTP/1.1 100 Continue\r\n", firstLine(), "the allowed upload is asked for")
	assert.Equal(t, "HTTP/1.1 429 Too Many Requests\r\n", firstLine(), "the denied one is not")
}
