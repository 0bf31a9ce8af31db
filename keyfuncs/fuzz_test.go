package keyfuncs_test

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/keyfuncs"
)

// FuzzClientIP feeds arbitrary peer addresses and forwarding headers to the
// client-IP strategies and checks what must always hold:
//
//   - no panic, and either ErrNoKey or a key;
//   - the key parses back as an address (IPv4, or IPv6 when grouping by
//     /128) or as a masked /64 IPv6 prefix, and formats to itself;
//   - with no trusted proxy, headers never change the key;
//   - with trusted proxies, anything a client prepends to the headers
//     never changes a key that names an untrusted address.
func FuzzClientIP(f *testing.F) {
	f.Add("10.0.0.1:443", "203.0.113.1, 10.0.0.2", "for=203.0.113.1", "1.2.3.4")
	f.Add("[2001:db8:ffff::1]:443", "2001:db8:1:2::3", `for="[2001:db8:cafe::17]:4711"`, `for="`)
	f.Add("192.0.2.1:1", "garbage, ::ffff:10.0.0.1", "for=unknown;proto=http", "\x00,,")
	f.Add("@", ",,,", `for="a,b";by=x, for=_hidden`, "[::1]:80")
	f.Add("[fe80::1%eth0]:80", "::ffff:192.0.2.1", "For=192.0.2.43, for=198.51.100.17", "999.1.1.1")

	def, err := keyfuncs.NewClientIP(keyfuncs.ClientIPConfig{})
	require.NoError(f, err)
	trusted, err := keyfuncs.NewClientIP(keyfuncs.ClientIPConfig{TrustedProxies: []string{"10.0.0.0/8", "2001:db8:ffff::/48", "::1"}})
	require.NoError(f, err)
	fwd, err := keyfuncs.NewClientIP(keyfuncs.ClientIPConfig{TrustedProxies: []string{"10.0.0.0/8", "2001:db8:ffff::/48"}, Headers: []string{"Forwarded"}})
	require.NoError(f, err)
	hops, err := keyfuncs.NewClientIP(keyfuncs.ClientIPConfig{TrustedHops: 2, Headers: []string{"X-Forwarded-For", "Forwarded", "X-Real-IP"}})
	require.NoError(f, err)

	f.Fuzz(func(t *testing.T, remote, xff, forwarded, junk string) {
		r := req(remote, "X-Forwarded-For", xff, "Forwarded", forwarded, "X-Real-IP", junk)
		peerKey, peerErr := keyfuncs.RemoteIP(r)
		checkKey(t, peerKey, peerErr)

		k, err := def(r)
		checkKey(t, k, err)
		require.Equal(t, peerKey, k, "no trusted proxy: headers must not matter")

		for _, f := range []keyfuncs.KeyFunc{trusted, fwd, hops} {
			k, err := f(r)
			checkKey(t, k, err)
		}

		// A client can only add on the left: a separate earlier line.
		spoofed := req(remote, "X-Forwarded-For", junk, "X-Forwarded-For", xff, "Forwarded", junk, "Forwarded", forwarded)
		for _, c := range []struct {
			f      keyfuncs.KeyFunc
			header string
		}{{trusted, xff}, {fwd, forwarded}} {
			k1, err1 := c.f(r)
			k2, err2 := c.f(spoofed)
			checkKey(t, k2, err2)
			if err1 == nil && !isOurs(k1) && hasEntries(c.header) {
				require.Equal(t, k1, k2, "client-prepended entries changed the key")
			}
		}
	})
}

// hasEntries reports whether a list header value holds an element, so that
// a spoofed copy only adds entries on the left. (A header with no entries
// is passed over for the next configured one; making it non-empty changes
// which header is read, which is why you should configure only the headers
// your proxies write.)
func hasEntries(v string) bool {
	return strings.Trim(v, " \t,") != ""
}

// isOurs reports whether key is one of the trusted proxy addresses of the
// fuzz configurations.
func isOurs(key string) bool {
	key = strings.TrimPrefix(key, "ip:")
	if a, err := netip.ParseAddr(key); err == nil {
		return netip.MustParsePrefix("10.0.0.0/8").Contains(a) || a == netip.MustParseAddr("::1")
	}
	if p, err := netip.ParsePrefix(key); err == nil {
		return netip.MustParsePrefix("2001:db8:ffff::/48").Overlaps(p) || p.Contains(netip.MustParseAddr("::1"))
	}
	return false
}

// checkKey asserts that a client-IP key round-trips.
func checkKey(t *testing.T, key string, err error) {
	t.Helper()
	if err != nil {
		require.ErrorIs(t, err, keyfuncs.ErrNoKey)
		require.Empty(t, key)
		return
	}
	require.NotEmpty(t, key)
	key, ok := strings.CutPrefix(key, "ip:")
	require.True(t, ok, "key %q is not in the ip namespace", key)
	if a, perr := netip.ParseAddr(key); perr == nil {
		require.True(t, a.Is4() || a.Is6() && !a.Is4In6() && a.Zone() == "", "key %q", key)
		require.Equal(t, key, a.String())
		return
	}
	p, perr := netip.ParsePrefix(key)
	require.NoError(t, perr, "key %q is neither an address nor a prefix", key)
	require.True(t, p.Addr().Is6())
	require.Equal(t, 64, p.Bits())
	require.Equal(t, p.Masked(), p, "prefix key must be masked")
	require.Equal(t, key, p.String())
}
