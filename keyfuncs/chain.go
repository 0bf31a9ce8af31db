package keyfuncs

import "net/netip"

// clientAddr finds the client address of r: the peer, unless the peer is
// trusted and a configured header names someone further out.
func (c *clientIP) clientAddr(r Request) (netip.Addr, bool) {
	peer, ok := peerAddr(r)
	// With a hop count the peer is a proxy by configuration, even one we
	// cannot address (a Unix socket); with ranges it must be in one.
	if !(c.hops > 0 || ok && c.isTrusted(peer)) {
		return peer, ok
	}
	for _, h := range c.headers {
		vals := r.HeaderValues(h.name)
		if len(vals) == 0 {
			continue
		}
		if a, found := c.fromHeader(h, vals, peer); found {
			return a, true
		}
	}
	return peer, ok
}

// fromHeader reads one configured header. It reports false when the header
// held nothing usable (then the next header, or the peer, is used).
func (c *clientIP) fromHeader(h sourceHeader, vals []string, peer netip.Addr) (netip.Addr, bool) {
	switch h.kind {
	case kindSingle:
		a, ok := parseHostPort(vals[len(vals)-1])
		return a, ok
	case kindXFF:
		var ch chain
		ch.readXFF(vals)
		return c.walk(&ch, peer)
	default:
		var ch chain
		ch.readForwarded(vals)
		return c.walk(&ch, peer)
	}
}

// walk goes through the chain from the right and returns the first address
// that is not trusted. The peer counts as hop 1. An entry that does not
// parse ends the walk: the last trusted address before it (the proxy that
// reported the garbage) is returned, or nothing if that is a peer without
// an address. A chain of nothing but trusted addresses gives its leftmost
// address (of the maxChain read).
func (c *clientIP) walk(ch *chain, peer netip.Addr) (netip.Addr, bool) {
	if ch.n == 0 {
		return netip.Addr{}, false
	}
	last := peer
	hop := 1
	for i := 0; i < ch.n; i++ {
		e := ch.e[i]
		hop++
		if !e.ok {
			return last, last.IsValid()
		}
		if hop > c.hops && !c.isTrusted(e.addr) {
			return e.addr, true
		}
		last = e.addr
	}
	return last, true
}
