package client

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A refusal that carries both Retry-After and a used-up quota whose reset
// is later: Retry-After takes precedence (the drafts say a client MUST
// let it), so the retry, and the key's other requests, go after it, not
// after the reset.
func TestRetryAfterTakesPrecedenceOverTheReset(t *testing.T) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.Header().Set("Retry-After", "1")
			w.Header().Set("RateLimit", `"p";r=0;t=5`)
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		w.Header().Set("RateLimit", `"p";r=4;t=1`)
	}))
	defer srv.Close()
	tr, err := New(nil, WithJitter(0))
	require.NoError(t, err)
	waits := fakeTime(tr)
	resp, err := (&http.Client{Transport: tr}).Get(srv.URL)
	require.NoError(t, err)
	_ = resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, int64(2), calls.Load())
	var waited time.Duration
	for _, w := range *waits {
		waited += w
	}
	assert.Equal(t, time.Second, (*waits)[0], "the retry waits the Retry-After")
	assert.LessOrEqual(t, waited, time.Second+resetMargin, "and not the reset: waits %v", *waits)
}
