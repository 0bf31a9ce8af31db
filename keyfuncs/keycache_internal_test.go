package keyfuncs

import (
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The cache remembers up to 256 recent clients only if their addresses
// spread over its slots: neighbouring IPv4 addresses, and neighbouring
// IPv6 /64s (whose keyed address is all zeros in its low half), included.
func TestKeyCacheSpreadsNeighbours(t *testing.T) {
	var c keyCache
	for name, addr := range map[string]func(i int) netip.Addr{
		"ipv4 /24": func(i int) netip.Addr { return netip.AddrFrom4([4]byte{198, 51, 100, byte(i)}) },
		"ipv6 /64s": func(i int) netip.Addr {
			return netip.AddrFrom16([16]byte{0x20, 0x01, 0x0d, 0xb8, 0, 0, byte(i >> 8), byte(i)})
		},
	} {
		slots := map[any]bool{}
		for i := range 256 {
			slots[c.slot(addr(i))] = true
		}
		t.Logf("%s: %d slots", name, len(slots))
		// Random placement would fill about 256·(1 − 1/e) ≈ 162.
		assert.GreaterOrEqual(t, len(slots), 128, name)
	}
}
