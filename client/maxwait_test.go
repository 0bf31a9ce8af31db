package client

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// fakeTime makes tr run on a fake clock, and returns the waits it makes.
func fakeTime(tr http.RoundTripper) *[]time.Duration {
	at := now
	var waits []time.Duration
	cfg := &tr.(*transport).cfg
	cfg.now = func() time.Time { return at }
	cfg.sleep = func(_ context.Context, d time.Duration) error {
		waits = append(waits, d)
		at = at.Add(d)
		return nil
	}
	return &waits
}

// MaxWait bounds the wait the server asks for, not that wait stretched by
// the jitter (nor by the millisecond added to a reset): a Retry-After, or
// a reset, of exactly MaxWait is waited for.
func TestMaxWaitBoundsTheServersWait(t *testing.T) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch calls.Add(1) {
		case 1:
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
		default:
			w.Header().Set("RateLimit", `"p";r=0;t=1`)
		}
	}))
	defer srv.Close()
	tr, err := New(nil, WithMaxWait(time.Second))
	require.NoError(t, err)
	waits := fakeTime(tr)
	c := &http.Client{Transport: tr}
	for range 2 {
		resp, err := c.Get(srv.URL)
		require.NoError(t, err)
		_ = resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
	}
	require.Len(t, *waits, 2, "the retry after Retry-After: 1, and the paced wait for t=1")
	require.GreaterOrEqual(t, (*waits)[0], time.Second)
	require.GreaterOrEqual(t, (*waits)[1], time.Second+resetMargin)
	require.Equal(t, int64(3), calls.Load())
}

// A Retry-After far beyond MaxWait (a Unix time sent as a delta, say) is
// waited for by no request, and is not remembered either: it would hold
// every later request of the key past MaxWait, so each would go out at
// once, and pacing on what the server says next would never resume.
func TestAbsurdRetryAfterIsForgotten(t *testing.T) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.Header().Set("Retry-After", "1732460000")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		w.Header().Set("RateLimit", `"p";r=0;t=1`)
	}))
	defer srv.Close()
	tr, err := New(nil, WithJitter(0))
	require.NoError(t, err)
	waits := fakeTime(tr)
	c := &http.Client{Transport: tr}
	for i, want := range []int{http.StatusTooManyRequests, http.StatusOK, http.StatusOK} {
		resp, err := c.Get(srv.URL)
		require.NoError(t, err)
		_ = resp.Body.Close()
		require.Equal(t, want, resp.StatusCode, "request %d", i)
	}
	require.Equal(t, []time.Duration{time.Second + resetMargin}, *waits, "the third request waits for the reset the second was told")
}
