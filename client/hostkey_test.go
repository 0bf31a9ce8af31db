package client

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// One host and port is one key however its URL writes it: the host's
// name in any case, the scheme's default port given or left out.
func TestHostKeyIsTheHostAndPort(t *testing.T) {
	same := [][]string{
		{"http://api.example/", "http://API.Example/", "http://api.example:80/", "http://api.example:/"},
		{"https://api.example/", "https://api.example:443/", "https://Api.Example:443/x"},
		{"http://[::1]/", "http://[::1]:80/"},
		{"http://127.0.0.1:8080/", "http://127.0.0.1:8080/y"},
	}
	var keys []string
	for _, urls := range same {
		key := ""
		for i, u := range urls {
			req, err := http.NewRequest("GET", u, nil)
			require.NoError(t, err)
			if i == 0 {
				key = hostKey(req)
				keys = append(keys, key)
				continue
			}
			assert.Equal(t, key, hostKey(req), "%s and %s", urls[0], u)
		}
	}
	// A scheme's default port is left out of the key, so the http and
	// https URLs of one host share it, as they did before.
	assert.Equal(t, keys[0], keys[1])
	assert.NotEqual(t, keys[0], keys[2])
	assert.NotEqual(t, keys[2], keys[3])
	other, err := http.NewRequest("GET", "https://api.example:8443/", nil)
	require.NoError(t, err)
	assert.NotEqual(t, keys[1], hostKey(other), "another port is another key")
}

// What the server said through one spelling of its URL paces the
// requests made through another: here the used-up quota learnt through
// http://api.example/ holds the request to http://API.example:80/ until
// its reset.
func TestPacingSharedAcrossSpellingsOfAHost(t *testing.T) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.Header().Set("RateLimit", `"p";r=0;t=1`)
			return
		}
		w.Header().Set("RateLimit", `"p";r=5;t=1`)
	}))
	defer srv.Close()
	// Every host the test names is the one test server.
	base := &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, srv.Listener.Addr().String())
	}}
	defer base.CloseIdleConnections()
	tr, err := New(base, WithJitter(0))
	require.NoError(t, err)
	waits := fakeTime(tr)
	c := &http.Client{Transport: tr}
	for _, u := range []string{"http://api.example/", "http://API.example:80/"} {
		resp, err := c.Get(u)
		require.NoError(t, err)
		_ = resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
	}
	require.Len(t, *waits, 1, "the second request waits for the reset the first was told")
	assert.Equal(t, int64(2), calls.Load())
}
