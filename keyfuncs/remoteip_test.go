package keyfuncs_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/keyfuncs"
)

func TestRemoteIP(t *testing.T) {
	tests := []struct {
		name   string
		remote string
		want   string
	}{
		{"ipv4 with port", "192.0.2.1:51234", "192.0.2.1"},
		{"bare ipv4", "192.0.2.1", "192.0.2.1"},
		{"ipv6 with port", "[2001:db8:1:2:3:4:5:6]:443", "2001:db8:1:2::/64"},
		{"bare ipv6", "2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"},
		{"bracketed ipv6 without port", "[2001:db8:1:2::9]", "2001:db8:1:2::/64"},
		{"same /64 shares a key", "[2001:db8:1:2:ffff:ffff:ffff:ffff]:1", "2001:db8:1:2::/64"},
		{"next /64 does not", "[2001:db8:1:3::1]:1", "2001:db8:1:3::/64"},
		{"ipv6 zone dropped", "[fe80::1%eth0]:80", "fe80::/64"},
		{"ipv4-mapped ipv6 is ipv4", "[::ffff:192.0.2.7]:80", "192.0.2.7"},
		{"nat64 well-known prefix is its ipv4 client", "[64:ff9b::192.0.2.7]:80", "192.0.2.7"},
		{"another client through nat64 has its own key", "[64:ff9b::c000:208]:80", "192.0.2.8"},
		{"the rest of 64:ff9b::/64 is ipv6", "[64:ff9b::1:c000:207]:80", "64:ff9b::/64"},
		{"loopback v6", "[::1]:80", "::/64"},
		{"bare ipv6 with :: at its first colon", "2001::5", "2001::/64"},
		{"bare loopback v6", "::1", "::/64"},
		{"spaces trimmed", " 192.0.2.1:80 ", "192.0.2.1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := keyfuncs.RemoteIP(req(tt.remote))
			require.NoError(t, err)
			assert.Equal(t, ipKey(tt.want), got)
		})
	}
}

func TestRemoteIPNoKey(t *testing.T) {
	for _, remote := range []string{"", "@", "pipe", "192.0.2.1:", "192.0.2.1:port", "192.0.2.1:123456", "[::1", "[::1]x", "999.0.0.1:80", "host.example:80"} {
		t.Run(remote, func(t *testing.T) {
			_, err := keyfuncs.RemoteIP(req(remote))
			assert.ErrorIs(t, err, keyfuncs.ErrNoKey)
		})
	}
}

func TestRemoteIPIgnoresHeaders(t *testing.T) {
	r := req("198.51.100.9:1000",
		"X-Forwarded-For", "203.0.113.1",
		"Forwarded", "for=203.0.113.2",
		"X-Real-IP", "203.0.113.3",
		"CF-Connecting-IP", "203.0.113.4")
	got, err := keyfuncs.RemoteIP(r)
	require.NoError(t, err)
	assert.Equal(t, "ip:198.51.100.9", got)
}
