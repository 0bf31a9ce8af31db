package client

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A redirect to another host is paced by that host's state, not by the
// state of the host that redirected: each hop of http.Client's redirects
// is a request of its own, keyed by its own URL.
func TestRedirectHopsUseTheirOwnHostsState(t *testing.T) {
	to := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("RateLimit", `"b";r=5;t=1`)
	}))
	defer to.Close()
	from := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Used up for thirty seconds, and sends the caller elsewhere.
		w.Header().Set("RateLimit", `"a";r=0;t=30`)
		http.Redirect(w, r, to.URL+"/moved", http.StatusFound)
	}))
	defer from.Close()
	tr, err := New(nil, WithJitter(0))
	require.NoError(t, err)
	waits := fakeTime(tr)
	c := &http.Client{Transport: tr}
	get := func(url string) {
		t.Helper()
		resp, err := c.Get(url)
		require.NoError(t, err)
		_ = resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
		require.Equal(t, "/moved", resp.Request.URL.Path)
	}

	get(from.URL)
	assert.Empty(t, *waits, "the hop to the other host does not wait for the first host's reset")
	get(to.URL + "/moved")
	assert.Empty(t, *waits, "the other host's own quota is not used up")
	get(from.URL)
	require.Len(t, *waits, 1, "the first host's used-up quota paces the next request to it")
	assert.Equal(t, 30*time.Second+resetMargin, (*waits)[0])
}
