package keyfuncs_test

import (
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/keyfuncs"
)

// Keyed by the Host field (one quota per tenant domain), every spelling
// of one host is one key: a host name is matched in any case, and the
// server answers it with or without a port or the root's trailing dot.
// Used as sent, each spelling was a quota of its own, so a client could
// multiply its quota by varying the case of the name, or adding ":80".
func TestHostFieldKeysEverySpellingAlike(t *testing.T) {
	key := keyfuncs.Header("Host", nil)
	want, err := key(req("192.0.2.1:5", "Host", "a.example"))
	require.NoError(t, err)
	assert.Equal(t, "hdr:host:a.example", want)
	for _, h := range []string{"A.Example", "A.EXAMPLE", "a.example:80", "a.example:8080", "a.example.", "A.Example.:443", " a.example "} {
		got, err := keyfuncs.Header("host", nil)(req("192.0.2.1:5", "Host", h))
		require.NoError(t, err, h)
		assert.Equal(t, want, got, "Host: %q", h)
	}
	v6, err := key(req("192.0.2.1:5", "Host", "[2001:DB8::1]:8080"))
	require.NoError(t, err)
	assert.Equal(t, "hdr:host:[2001:db8::1]", v6, "an IPv6 literal keeps its colons")
	// A bare IPv6 address (no brackets, so no port) is no valid Host, but
	// two of them are two hosts, never one key cut at the last colon.
	b1, err := key(req("192.0.2.1:5", "Host", "2001:db8::1"))
	require.NoError(t, err)
	b2, err := key(req("192.0.2.1:5", "Host", "2001:db8::2"))
	require.NoError(t, err)
	assert.NotEqual(t, b1, b2, "two bare IPv6 hosts")
	other, err := key(req("192.0.2.1:5", "Host", "b.example"))
	require.NoError(t, err)
	assert.NotEqual(t, want, other, "another host is another key")
	_, err = key(req("192.0.2.1:5", "Host", ":80"))
	assert.ErrorIs(t, err, keyfuncs.ErrNoKey, "a port alone names no host")

	// Any other field is used as sent: an API key is case-sensitive.
	a, err := keyfuncs.Header("X-API-Key", nil)(req("192.0.2.1:5", "X-API-Key", "AbC"))
	require.NoError(t, err)
	assert.Equal(t, "hdr:x-api-key:AbC", a)
}

// HTTPRequest reads the Host field from r.Host, as the adapters do, so a
// test that builds its request as its doc says keys it as a server would.
func TestHTTPRequestHostIsRequestHost(t *testing.T) {
	key := keyfuncs.Header("Host", nil)
	r := httptest.NewRequest("GET", "http://A.Example:8080/x", nil)
	got, err := key(keyfuncs.HTTPRequest(r, ""))
	require.NoError(t, err)
	assert.Equal(t, "hdr:host:a.example", got)
	r.Header.Set("Host", "x1.example") // not the Host field: net/http never reads it
	got, err = key(keyfuncs.HTTPRequest(r, ""))
	require.NoError(t, err)
	assert.Equal(t, "hdr:host:a.example", got)
	r.Host = "b.example"
	got, err = key(keyfuncs.HTTPRequest(r, ""))
	require.NoError(t, err)
	assert.Equal(t, "hdr:host:b.example", got)
}
