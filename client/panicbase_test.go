package client

import (
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A base RoundTripper that panics (a caller up the stack may recover, as
// net/http's server does for its handlers) leaves the key as a failed
// request does: the panic goes on up, and the request counts in flight no
// more. Counted for ever, each such panic would take one unit off every
// quota the key is told from then on.
func TestBasePanicReleasesItsUnit(t *testing.T) {
	var calls atomic.Int64
	tr, err := New(rtFunc(func(*http.Request) (*http.Response, error) {
		n := calls.Add(1)
		if n == 1 {
			panic("base broke")
		}
		// A quota of three, counted down by the server.
		h := http.Header{}
		h.Set("RateLimit", fmt.Sprintf(`"p";r=%d;t=10`, 4-n))
		return &http.Response{StatusCode: http.StatusOK, Header: h, Body: http.NoBody}, nil
	}))
	require.NoError(t, err)
	waits := fakeTime(tr)
	send := func() {
		req, err := http.NewRequest("GET", "http://a.example/", nil)
		require.NoError(t, err)
		resp, err := tr.RoundTrip(req)
		require.NoError(t, err)
		_ = resp.Body.Close()
	}
	assert.PanicsWithValue(t, "base broke", send, "the base's panic goes on up")
	send() // told: two units left
	send()
	send()
	assert.Empty(t, *waits, "the two units told are there for two requests")
	assert.Equal(t, int64(4), calls.Load())
}
