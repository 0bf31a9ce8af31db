package client

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// trackedBody is a request body that records whether it was closed; it
// has no GetBody, so the transport cannot recreate it.
type trackedBody struct {
	io.Reader
	closed atomic.Bool
}

func (b *trackedBody) Close() error {
	b.closed.Store(true)
	return nil
}

// A request held back by pacing keeps its body: it is sent whole after
// the wait. One cancelled while it waits returns its context's error at
// once, is never sent, and has its body closed, as RoundTrip must.
func TestPacedRequestBodies(t *testing.T) {
	var mu sync.Mutex
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		mu.Unlock()
		w.Header().Set("RateLimit", `"p";r=0;t=30`)
	}))
	defer srv.Close()
	tr, err := New(nil, WithJitter(0))
	require.NoError(t, err)
	cfg := &tr.(*transport).cfg
	// On a fake clock, the first wait passes at once; the second blocks
	// until its context is done, and says it has begun.
	var clock atomic.Int64
	cfg.now = func() time.Time { return now.Add(time.Duration(clock.Load())) }
	waiting := make(chan struct{})
	var waits atomic.Int64
	cfg.sleep = func(ctx context.Context, d time.Duration) error {
		if waits.Add(1) == 1 {
			clock.Add(int64(d))
			return nil
		}
		close(waiting)
		<-ctx.Done()
		return ctx.Err()
	}
	put := func(ctx context.Context, body *trackedBody) (*http.Response, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPut, srv.URL, body)
		require.NoError(t, err)
		return tr.RoundTrip(req)
	}

	resp, err := put(context.Background(), &trackedBody{Reader: strings.NewReader("first")})
	require.NoError(t, err)
	_ = resp.Body.Close()
	resp, err = put(context.Background(), &trackedBody{Reader: strings.NewReader("second, after the wait")})
	require.NoError(t, err)
	_ = resp.Body.Close()
	require.Equal(t, int64(1), waits.Load(), "the second request waited for the reset")

	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-waiting
		cancel()
	}()
	third := &trackedBody{Reader: strings.NewReader("never sent")}
	resp, err = put(ctx, third)
	require.ErrorIs(t, err, context.Canceled)
	assert.Nil(t, resp)
	assert.True(t, third.closed.Load(), "the body of a request not sent is closed")
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []string{"first", "second, after the wait"}, bodies)
}
