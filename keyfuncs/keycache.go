package keyfuncs

import (
	"encoding/binary"
	"net/netip"
	"sync/atomic"
)

// keyCacheBits sets the number of slots of a keyCache: 256, about 2 KB of
// pointers per client-IP key func.
const keyCacheBits = 8

// keyCache remembers the keys of recent clients, one per slot, so that a
// returning client's key is neither formatted nor allocated again. Each
// slot holds an immutable entry behind an atomic pointer: a lookup takes no
// lock and writes no shared memory, and a miss replaces the slot's entry.
// A hit is checked against the full address, so a key is never given to
// another client, whatever the collisions.
type keyCache struct {
	slots [1 << keyCacheBits]atomic.Pointer[keyEntry]
}

// keyEntry is one cached key: the address it was formatted from (for IPv6,
// the masked prefix's address) and the key.
type keyEntry struct {
	addr netip.Addr
	key  string
}

// slot returns a's slot.
func (c *keyCache) slot(a netip.Addr) *atomic.Pointer[keyEntry] {
	b := a.As16()
	hi := binary.BigEndian.Uint64(b[:8])
	lo := binary.BigEndian.Uint64(b[8:])
	// Multiplicative (Fibonacci) hashing: the top bits of the product
	// depend on every bit of the address. The xor-shift between the two
	// products keeps them from acting as one multiplier on hi when lo is
	// zero, as it is for every IPv6 /64: neighbouring /64s would share a
	// quarter of the slots.
	h := hi*0x9e3779b97f4a7c15 ^ lo
	h ^= h >> 32
	h *= 0xc2b2ae3d27d4eb4f
	return &c.slots[h>>(64-keyCacheBits)]
}

// get returns the key cached for a, if any.
func (c *keyCache) get(a netip.Addr) (string, bool) {
	if e := c.slot(a).Load(); e != nil && e.addr == a {
		return e.key, true
	}
	return "", false
}

// put caches key for a, replacing whatever its slot held.
func (c *keyCache) put(a netip.Addr, key string) {
	c.slot(a).Store(&keyEntry{addr: a, key: key})
}
