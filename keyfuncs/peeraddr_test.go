package keyfuncs_test

import (
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/internal/keytest"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

// addrRequest is a request whose adapter knows the peer as an address.
type addrRequest struct {
	keytest.Request
	addr netip.Addr
	ok   bool
}

func (r *addrRequest) PeerAddr() (netip.Addr, bool) { return r.addr, r.ok }

// A request that knows its peer as an address is keyed by it exactly as
// by its RemoteAddr text; one that does not know it falls back to the
// text.
func TestPeerAddrKeysLikeRemoteAddr(t *testing.T) {
	cases := []struct {
		addr string
		want string
	}{
		{"192.0.2.1", "ip:192.0.2.1"},
		{"::ffff:192.0.2.7", "ip:192.0.2.7"},
		{"2001:db8:1:2:3:4:5:6", "ip:2001:db8:1:2::/64"},
		{"fe80::1%eth0", "ip:fe80::/64"},
	}
	for _, c := range cases {
		r := &addrRequest{addr: netip.MustParseAddr(c.addr), ok: true}
		r.RemoteAddrValue = "garbage" // not read
		got, err := keyfuncs.RemoteIP(r)
		require.NoError(t, err, c.addr)
		assert.Equal(t, c.want, got, c.addr)
	}
	r := &addrRequest{}
	r.RemoteAddrValue = "198.51.100.9:80"
	got, err := keyfuncs.RemoteIP(r)
	require.NoError(t, err)
	assert.Equal(t, "ip:198.51.100.9", got)
}
