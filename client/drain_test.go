package client_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/client"
)

// trickling answers its first request 429 (Retry-After: 0) with a body it
// sends a byte at a time, slowly, for at most three seconds, and every
// later one 200. It counts the connections it accepts.
func trickling(t *testing.T, body string, every time.Duration) (string, *atomic.Int64, *atomic.Int64) {
	url, calls, conns, _ := tricklingOver(t, false, body, every)
	return url, calls, conns
}

// tricklingOver is trickling, over HTTP/2 and TLS when h2 is set; it also
// returns a base transport that trusts the server.
func tricklingOver(t *testing.T, h2 bool, body string, every time.Duration) (string, *atomic.Int64, *atomic.Int64, http.RoundTripper) {
	t.Helper()
	var calls, conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) > 1 {
			_, _ = io.WriteString(w, "ok")
			return
		}
		w.Header().Set("Retry-After", "0")
		w.WriteHeader(http.StatusTooManyRequests)
		w.(http.Flusher).Flush()
		stop := time.After(3 * time.Second)
		for i := 0; i < len(body); i++ {
			if i > 0 && every > 0 {
				select {
				case <-time.After(every):
				case <-r.Context().Done():
					return
				case <-stop:
					return
				}
			}
			if _, err := io.WriteString(w, body[i:i+1]); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	if h2 {
		srv.EnableHTTP2 = true
		srv.StartTLS()
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	return srv.URL, &calls, &conns, srv.Client().Transport
}

// A 429 whose body trickles in does not hold the retry back: the
// transport gives up reading it (and the connection with it) rather than
// spend the request's deadline, or hang without one.
func TestSlowRefusalBodyDoesNotHoldTheRetry(t *testing.T) {
	for _, deadline := range []time.Duration{0, 2 * time.Second} {
		url, calls, _ := trickling(t, "slow refusal body", 200*time.Millisecond)
		ctx := context.Background()
		if deadline > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, deadline)
			defer cancel()
		}
		c := &http.Client{Transport: newClient(t).Transport} // no client timeout
		start := time.Now()
		resp, err := c.Do(request(t, ctx, "GET", url, nil))
		require.NoError(t, err, "deadline %v", deadline)
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		assert.Equal(t, http.StatusOK, resp.StatusCode, "deadline %v: the retry went out", deadline)
		assert.Equal(t, int64(2), calls.Load())
		assert.Less(t, time.Since(start), 1500*time.Millisecond, "deadline %v", deadline)
	}
}

// The same over HTTP/2, where closing the body resets only its stream.
func TestSlowRefusalBodyDoesNotHoldTheRetryOverHTTP2(t *testing.T) {
	url, calls, conns, base := tricklingOver(t, true, "slow refusal body", 200*time.Millisecond)
	tr, err := client.New(base)
	require.NoError(t, err)
	start := time.Now()
	resp, err := (&http.Client{Transport: tr}).Do(request(t, context.Background(), "GET", url, nil))
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	assert.Equal(t, 2, resp.ProtoMajor)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, int64(2), calls.Load())
	assert.Equal(t, int64(1), conns.Load(), "one connection, two streams")
	assert.Less(t, time.Since(start), 1500*time.Millisecond)
}

// A 429 with a small body that arrives at once is read to its end, so
// the retry goes out on the same connection.
func TestRefusalBodyKeepsTheConnection(t *testing.T) {
	url, calls, conns := trickling(t, `{"error":"rate limited"}`, 0)
	resp := do(t, newClient(t), request(t, context.Background(), "GET", url, nil))
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, int64(2), calls.Load())
	assert.Equal(t, int64(1), conns.Load(), "the retry reused the connection")
}
