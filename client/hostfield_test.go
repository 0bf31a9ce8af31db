package client

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A fully qualified name, written with its trailing dot, is the same host
// as the name without it: one key, in any case, default port or not.
func TestHostKeyTrailingDotIsTheSameHost(t *testing.T) {
	same := [][]string{
		{"http://a.example/", "http://a.example./", "http://A.EXAMPLE./", "http://a.example.:80/"},
		{"https://a.example/", "https://a.example.:443/"},
		{"http://a.example:8080/", "http://a.example.:8080/", "http://A.Example.:8080/"},
	}
	for _, urls := range same {
		first, err := http.NewRequest("GET", urls[0], nil)
		require.NoError(t, err)
		for _, u := range urls[1:] {
			req, err := http.NewRequest("GET", u, nil)
			require.NoError(t, err)
			assert.Equal(t, hostKey(first), hostKey(req), "%s and %s", urls[0], u)
		}
	}
	other, err := http.NewRequest("GET", "http://a.example.:8081/", nil)
	require.NoError(t, err)
	req, err := http.NewRequest("GET", "http://a.example:8080/", nil)
	require.NoError(t, err)
	assert.NotEqual(t, hostKey(req), hostKey(other), "another port is another key")
}

// hostReq is a GET of url whose Host field names host ("" for none).
func hostReq(t *testing.T, url, host string) *http.Request {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	require.NoError(t, err)
	req.Host = host
	return req
}

// A request whose Host field names another host than its URL (a tenant
// reached through a load balancer's address) is keyed by both: tenants of
// one address do not share a key, nor do addresses that take one Host.
func TestHostKeyHonoursTheHostField(t *testing.T) {
	a := hostKey(hostReq(t, "http://10.0.0.1/", "a.example"))
	b := hostKey(hostReq(t, "http://10.0.0.1/", "b.example"))
	assert.NotEqual(t, a, b, "two tenants behind one address")
	assert.NotEqual(t, a, hostKey(hostReq(t, "http://10.0.0.2/", "a.example")), "one Host at two addresses")
	assert.NotEqual(t, a, hostKey(hostReq(t, "http://10.0.0.1/", "")), "a tenant and the bare address")
	assert.Equal(t, a, hostKey(hostReq(t, "http://10.0.0.1:80/", "A.Example.:80")), "one tenant, spelt two ways")
	// A Host that names the URL's own host, however spelt, is no tenant.
	assert.Equal(t, hostKey(hostReq(t, "http://a.example/", "")), hostKey(hostReq(t, "http://a.example/", "A.EXAMPLE:80")))
	assert.Equal(t, "a.example", hostKey(hostReq(t, "http://a.example/", "a.example")))
}

// Against a server that limits each virtual host on its own, the used-up
// quota of one tenant holds none of another's requests through the same
// address.
func TestTenantsBehindOneAddressArePacedApart(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.Host]++
		mu.Unlock()
		if r.Host == "a.example" {
			w.Header().Set("RateLimit", `"p";r=0;t=30`)
			return
		}
		w.Header().Set("RateLimit", `"p";r=9;t=30`)
	}))
	defer srv.Close()
	tr, err := New(srv.Client().Transport, WithJitter(0))
	require.NoError(t, err)
	waits := fakeTime(tr)
	c := &http.Client{Transport: tr}
	for _, host := range []string{"a.example", "b.example", "b.example"} {
		resp, err := c.Do(hostReq(t, srv.URL, host))
		require.NoError(t, err)
		_ = resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
	}
	assert.Empty(t, *waits, "b.example's requests wait for a.example's reset")
	assert.Equal(t, map[string]int{"a.example": 1, "b.example": 2}, seen)
}

// The Host field's port says nothing of where the request goes (the URL's
// does): a Host naming the URL's host with another port, or none, is no
// tenant, and one tenant's Host with a port or without is one key. (A
// client that sets Host to its URL's name without the port split one
// server's quota in two, each key spending all of it.)
func TestHostKeyIgnoresTheHostFieldsPort(t *testing.T) {
	bare := hostKey(hostReq(t, "http://a.example:8080/", ""))
	assert.Equal(t, bare, hostKey(hostReq(t, "http://a.example:8080/", "a.example")))
	assert.Equal(t, bare, hostKey(hostReq(t, "http://a.example:8080/", "A.Example.:9090")))
	tenant := hostKey(hostReq(t, "http://10.0.0.1:8080/", "api.example"))
	assert.Equal(t, tenant, hostKey(hostReq(t, "http://10.0.0.1:8080/", "api.example:8080")))
	assert.NotEqual(t, tenant, hostKey(hostReq(t, "http://10.0.0.1:8080/", "")))
	assert.Equal(t, hostKey(hostReq(t, "http://[::1]:8080/", "")), hostKey(hostReq(t, "http://[::1]:8080/", "[::1]")))
}
