package keyfuncs

import (
	"net/netip"
	"slices"
)

// coversFamily reports whether the union of ps holds every address of one
// family (all of IPv4, or all of IPv6), and which: a list that does
// trusts every client of that family as surely as "0.0.0.0/0", however it
// is cut up ("0.0.0.0/1" and "128.0.0.0/1"). The prefixes must be masked.
// It sorts a copy by first address and merges, so a long list of cloud
// ranges costs one sort.
func coversFamily(ps []netip.Prefix) (family string, ok bool) {
	if coversAll(ps, netip.IPv4Unspecified()) {
		return "IPv4", true
	}
	if coversAll(ps, netip.IPv6Unspecified()) {
		return "IPv6", true
	}
	return "", false
}

// coversAll reports whether the prefixes of ps of first's family together
// hold every address from first, the family's lowest, to its highest.
func coversAll(ps []netip.Prefix, first netip.Addr) bool {
	var fam []netip.Prefix
	for _, p := range ps {
		if p.Addr().BitLen() == first.BitLen() {
			fam = append(fam, p)
		}
	}
	slices.SortFunc(fam, func(a, b netip.Prefix) int { return a.Addr().Compare(b.Addr()) })
	next := first // the lowest address not yet covered
	for _, p := range fam {
		if p.Addr().Compare(next) > 0 {
			return false // a gap before p
		}
		end := lastAddr(p)
		if end.Compare(next) < 0 {
			continue // inside what is covered already
		}
		next = end.Next()
		if !next.IsValid() {
			return true // end is the family's highest address
		}
	}
	return false
}

// lastAddr is the highest address of the masked prefix p.
func lastAddr(p netip.Prefix) netip.Addr {
	b := p.Addr().As16()
	skip := 128 - p.Addr().BitLen() // an IPv4 address sits in the last 4 bytes
	for i := skip + p.Bits(); i < 128; i++ {
		b[i/8] |= 0x80 >> (i % 8)
	}
	a := netip.AddrFrom16(b)
	if p.Addr().Is4() {
		return a.Unmap()
	}
	return a
}
