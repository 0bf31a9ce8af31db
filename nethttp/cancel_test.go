package nethttp_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/redisstore"
	"github.com/ratewindow/ratewindow/internal/testredis"
	"github.com/ratewindow/ratewindow/nethttp"
)

// redisLimit is middleware over the real Redis, one request a minute per
// client, on keys of the test's own.
func redisLimit(t *testing.T, opts ...ratewindow.Option) func(http.Handler) http.Handler {
	t.Helper()
	store, err := redisstore.New(testredis.Standalone(t), redisstore.WithPrefix("rw-test:"+t.Name()+":"+time.Now().Format(time.RFC3339Nano)+":"))
	require.NoError(t, err)
	l, err := core.NewLimiter(store, []core.Policy{core.PerMinute(1).Using(core.SlidingLog)})
	require.NoError(t, err)
	limit, err := nethttp.New(l, opts...)
	require.NoError(t, err)
	return limit
}

// The Redis store gives up, uncharged, on a request whose context is
// cancelled. Under fail-open (the default) such requests used to pass,
// unlimited. They get a real decision now: the first is allowed and
// counted, the second denied.
func TestCancelledRequestsAreCounted(t *testing.T) {
	var outcomes []ratewindow.Outcome
	limit := redisLimit(t, ratewindow.WithOnDecision(func(ev ratewindow.Event) { outcomes = append(outcomes, ev.Outcome) }))
	calls := 0
	h := limit(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { calls++ }))

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var codes []int
	for range 2 {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil).WithContext(ctx))
		codes = append(codes, rec.Code)
	}
	assert.Equal(t, []int{200, 429}, codes)
	assert.Equal(t, 1, calls, "handler runs, limit 1")
	assert.Equal(t, []ratewindow.Outcome{ratewindow.Allowed, ratewindow.Denied}, outcomes)
}

// net/http cancels a request's context when its client half-closes the
// connection, and still writes the answer. A client that sends each
// request and half-closes gets its limit, and 429s after it.
func TestHalfClosingClientsGetTheLimit(t *testing.T) {
	var calls atomic.Int64
	srv := httptest.NewServer(redisLimit(t)(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		calls.Add(1)
		_, _ = io.WriteString(w, "served\n")
	})))
	defer srv.Close()
	served, denied := 0, 0
	for range 20 {
		c, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
		require.NoError(t, err)
		require.NoError(t, c.SetDeadline(time.Now().Add(5*time.Second)))
		_, err = io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		require.NoError(t, err)
		require.NoError(t, c.(*net.TCPConn).CloseWrite())
		b, _ := io.ReadAll(c)
		_ = c.Close()
		switch {
		case strings.Contains(string(b), "served"):
			served++
		case strings.HasPrefix(string(b), "HTTP/1.1 429 "):
			denied++
		}
	}
	assert.Equal(t, 1, served, "answers read by a half-closing client, limit 1")
	assert.Equal(t, 19, denied)
	assert.Equal(t, int64(1), calls.Load(), "handler runs, limit 1")
}
