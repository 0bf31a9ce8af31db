package keyfuncs_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/keyfuncs"
)

// RFC 7239 (section 6) lets a proxy hide a client's port behind an
// obfuscated identifier ("_" and letters, digits, '.', '_', '-') while
// giving its address: for="192.0.2.43:_hidden". The address is the
// client's, and is its key; read as an unparsable entry, it stopped the
// walk and keyed every client of that proxy by the proxy, one shared quota.
// An obfuscated node (for=_hidden), a malformed port, and a port in
// X-Forwarded-For, which has no such syntax, still stop the walk.
func TestForwardedObfuscatedPortKeysTheAddress(t *testing.T) {
	fwd, err := keyfuncs.NewClientIP(keyfuncs.ClientIPConfig{TrustedProxies: proxies, Headers: []string{"Forwarded"}})
	require.NoError(t, err)
	xff, err := keyfuncs.NewClientIP(keyfuncs.ClientIPConfig{TrustedProxies: proxies})
	require.NoError(t, err)

	for node, want := range map[string]string{
		`"192.0.2.43:_hidden"`:          "ip:192.0.2.43",
		`"192.0.2.43:_p-1.x_Y9"`:        "ip:192.0.2.43",
		`"[2001:db8:cafe::17]:_conn42"`: "ip:2001:db8:cafe::/64",
		`"192.0.2.43:4711"`:             "ip:192.0.2.43",
		`_hidden`:                       "ip:10.0.0.2",
		`"192.0.2.43:_"`:                "ip:10.0.0.2",
		`"192.0.2.43:_a b"`:             "ip:10.0.0.2",
		`"192.0.2.43:_a:_b"`:            "ip:10.0.0.2",
		`"192.0.2.43:x_y"`:              "ip:10.0.0.2",
		`"[2001:db8:cafe::17]_x"`:       "ip:10.0.0.2",
	} {
		got, err := fwd(req("10.0.0.1:1", "Forwarded", "for=198.51.100.200, for="+node+";proto=https, for=10.0.0.2"))
		require.NoError(t, err)
		assert.Equal(t, want, got, "for=%s", node)
	}

	got, err := xff(req("10.0.0.1:1", "X-Forwarded-For", "198.51.100.200, 192.0.2.43:_hidden, 10.0.0.2"))
	require.NoError(t, err)
	assert.Equal(t, "ip:10.0.0.2", got, "X-Forwarded-For has no obfuscated ports")
}
