package client

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// A request whose context is done before it is sent (the rest of a
// fan-out one of whose calls failed) gets its context's error and takes
// nothing of the remembered quota: it never reached the server, so the
// next live request still goes out at once.
func TestCancelledRequestTakesNoQuota(t *testing.T) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		left := max(3-calls.Add(1), 0)
		w.Header().Set("RateLimit", `"p";r=`+strconv.FormatInt(left, 10)+`;t=30`)
	}))
	defer srv.Close()
	tr, err := New(nil, WithJitter(0))
	require.NoError(t, err)
	waits := fakeTime(tr)
	get := func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
		require.NoError(t, err)
		resp, err := tr.RoundTrip(req)
		if err == nil {
			_ = resp.Body.Close()
			require.Equal(t, http.StatusOK, resp.StatusCode)
		}
		return err
	}

	require.NoError(t, get(context.Background())) // the server has 2 left
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for range 5 {
		require.ErrorIs(t, get(cancelled), context.Canceled)
	}
	require.Equal(t, int64(1), calls.Load(), "no cancelled request reached the server")
	require.NoError(t, get(context.Background()))
	require.NoError(t, get(context.Background()))
	require.Empty(t, *waits, "the two units the server has left are sent at once")
	require.Equal(t, int64(3), calls.Load())
}
