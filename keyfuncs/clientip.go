package keyfuncs

import (
	"fmt"
	"net/netip"
	"net/textproto"
	"strings"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/httptoken"
)

// ClientIPConfig configures NewClientIP. The zero value keys by the peer
// address only and reads no header, which is the only safe choice when you
// do not know which proxies stand in front of you.
type ClientIPConfig struct {
	// TrustedProxies lists the addresses of your reverse proxies, as CIDR
	// ranges ("10.0.0.0/8", "2001:db8::/48") or single IPs ("192.0.2.7").
	// Headers are read only when the peer is one of them, and walking the
	// forwarding chain from the right skips every address in them. A range
	// of every address ("0.0.0.0/0", "::/0") is refused, and so is a list
	// whose ranges together hold every IPv4 or every IPv6 address
	// ("0.0.0.0/1" and "128.0.0.0/1"): with it, any client's own header
	// would choose its key.
	TrustedProxies []string

	// TrustedHops is the number of reverse proxies every request passes
	// through before reaching you, counting the one that connects to you.
	// With TrustedHops n the peer is trusted and the n-1 rightmost chain
	// entries are skipped whatever their address. Prefer TrustedProxies:
	// a hop count is only right if no request can reach you by a shorter
	// path. When both are set, an address is trusted if either says so.
	TrustedHops int

	// Headers are the headers consulted, in order; the first one that
	// holds an entry is used. "X-Forwarded-For" and "Forwarded" (RFC 7239)
	// are lists walked from the right; any other name (e.g. "X-Real-IP",
	// "CF-Connecting-IP") is a single address set by the trusted peer.
	// Default: X-Forwarded-For, then Forwarded.
	//
	// List only headers your proxies write. If your proxy appends to
	// Forwarded but passes X-Forwarded-For through untouched, a client
	// could send its own X-Forwarded-For, which the default order reads
	// first: set Headers to []string{"Forwarded"}. Likewise a single-address
	// header is only safe if your proxy always overwrites it.
	Headers []string

	// IPv6Prefix is the prefix length, 1 to 128, by which IPv6 clients are
	// grouped (default 64): every address in one /64 shares a key. An
	// address of the NAT64 well-known prefix 64:ff9b::/96, an IPv4 client
	// seen through a translator, is keyed by its IPv4 address. Behind a
	// translator with a prefix of its own, set 128, or its IPv4 clients
	// share the translator's /64.
	IPv6Prefix int
}

// defaultIPv6Prefix is the prefix length by which IPv6 clients are grouped
// when ClientIPConfig.IPv6Prefix is zero.
const defaultIPv6Prefix = 64

// headerKind says how a configured header is read.
type headerKind uint8

const (
	kindXFF       headerKind = iota // comma-separated list of addresses
	kindForwarded                   // RFC 7239 elements with for= parameters
	kindSingle                      // one address set by the peer
)

// sourceHeader is one configured header.
type sourceHeader struct {
	name string // canonical form
	kind headerKind
}

// clientIP is a compiled ClientIPConfig.
type clientIP struct {
	trusted []netip.Prefix
	hops    int
	headers []sourceHeader
	v6bits  int
	keys    keyCache // recent clients' keys
}

// NewClientIP returns a KeyFunc that keys requests by client address,
// reading forwarding headers only from trusted proxies (see the package
// documentation). It returns an error wrapping core.ErrInvalidConfig,
// naming the field, when the configuration is wrong.
//
// The key is "ip:" and the address as text ("ip:192.0.2.1") for IPv4, and
// the masked prefix ("ip:2001:db8:1:2::/64") for IPv6. When no address can be found at
// all (a peer address that does not parse, such as a Unix socket) the
// KeyFunc returns ErrNoKey.
//
// The KeyFunc remembers the keys of up to 256 recent clients (a few tens
// of KB at most), so that a returning client's key is not built again: it
// costs no allocation.
func NewClientIP(cfg ClientIPConfig) (KeyFunc, error) {
	c, err := compileClientIP(cfg)
	if err != nil {
		return nil, err
	}
	return c.key, nil
}

// RemoteIP keys requests by the peer address only, reading no header, e.g.
// "ip:192.0.2.1". IPv6 addresses are grouped by /64; IPv4-mapped
// addresses, and those of the NAT64 well-known prefix 64:ff9b::/96, are
// keyed by the IPv4 address they carry. Behind a reverse proxy or load balancer the
// peer is the proxy, so every client shares its key: use NewClientIP there.
func RemoteIP(r Request) (string, error) { return remoteIP.key(r) }

// remoteIP is the configuration behind RemoteIP.
var remoteIP = &clientIP{v6bits: defaultIPv6Prefix}

func compileClientIP(cfg ClientIPConfig) (*clientIP, error) {
	c := &clientIP{hops: cfg.TrustedHops, v6bits: cfg.IPv6Prefix}
	if c.v6bits == 0 {
		c.v6bits = defaultIPv6Prefix
	}
	if c.v6bits < 1 || c.v6bits > 128 {
		return nil, fmt.Errorf("%w: keyfuncs: ClientIPConfig.IPv6Prefix must be 1 to 128, got %d", core.ErrInvalidConfig, cfg.IPv6Prefix)
	}
	if c.hops < 0 {
		return nil, fmt.Errorf("%w: keyfuncs: ClientIPConfig.TrustedHops must not be negative, got %d", core.ErrInvalidConfig, cfg.TrustedHops)
	}
	for i, s := range cfg.TrustedProxies {
		p, err := parseTrusted(s)
		if err != nil {
			hint := ""
			if strings.ContainsAny(strings.TrimSpace(s), ", ") {
				hint = " (several in one string? give each its own element)"
			}
			return nil, fmt.Errorf("%w: keyfuncs: ClientIPConfig.TrustedProxies[%d]: %q is neither an IP address nor a CIDR range%s", core.ErrInvalidConfig, i, s, hint)
		}
		if p.Bits() == 0 {
			return nil, fmt.Errorf("%w: keyfuncs: ClientIPConfig.TrustedProxies[%d]: %q trusts every address, so any client could write its own address into a header and choose its key: list your proxies' ranges, or set TrustedHops", core.ErrInvalidConfig, i, s)
		}
		c.trusted = append(c.trusted, p)
	}
	if fam, all := coversFamily(c.trusted); all {
		return nil, fmt.Errorf("%w: keyfuncs: ClientIPConfig.TrustedProxies: together the ranges %q hold every %s address, so any client could write its own address into a header and choose its key: list your proxies' ranges, or set TrustedHops", core.ErrInvalidConfig, cfg.TrustedProxies, fam)
	}
	names := cfg.Headers
	if len(names) == 0 {
		names = []string{"X-Forwarded-For", "Forwarded"}
	}
	for i, n := range names {
		if !httptoken.Valid(n) {
			return nil, fmt.Errorf("%w: keyfuncs: ClientIPConfig.Headers[%d]: %q is not a valid header name", core.ErrInvalidConfig, i, n)
		}
		h := sourceHeader{name: textproto.CanonicalMIMEHeaderKey(n), kind: kindSingle}
		switch h.name {
		case "X-Forwarded-For":
			h.kind = kindXFF
		case "Forwarded":
			h.kind = kindForwarded
		}
		c.headers = append(c.headers, h)
	}
	return c, nil
}

// addrRequest is a Request that also knows its peer as an address, as an
// adapter over a framework that holds it as one does: the key funcs then
// read it directly instead of parsing RemoteAddr. PeerAddr reports false
// when the peer has no IP address (a Unix socket); RemoteAddr is then
// parsed as for any Request.
type addrRequest interface {
	PeerAddr() (netip.Addr, bool)
}

// peerAddr is the peer's IP address, unmapped and without a zone.
func peerAddr(r Request) (netip.Addr, bool) {
	if ar, ok := r.(addrRequest); ok {
		if a, ok := ar.PeerAddr(); ok && a.IsValid() {
			return a.Unmap().WithZone(""), true
		}
	}
	return parseHostPort(r.RemoteAddr())
}

// parseTrusted parses a CIDR range or a single address as a prefix.
func parseTrusted(s string) (netip.Prefix, error) {
	s = strings.TrimSpace(s)
	if strings.Contains(s, "/") {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return netip.Prefix{}, err
		}
		if a := p.Addr(); a.Is4In6() && p.Bits() >= 96 {
			p = netip.PrefixFrom(a.Unmap(), p.Bits()-96)
		}
		return p.Masked(), nil
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Prefix{}, err
	}
	a = a.Unmap().WithZone("")
	return netip.PrefixFrom(a, a.BitLen()), nil
}

// key is the KeyFunc.
func (c *clientIP) key(r Request) (string, error) {
	a, ok := c.clientAddr(r)
	if !ok {
		return "", ErrNoKey
	}
	return c.format(a), nil
}

// isTrusted reports whether a is in a trusted range.
func (c *clientIP) isTrusted(a netip.Addr) bool {
	for _, p := range c.trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// nat64 is the well-known prefix of IPv4/IPv6 translators (RFC 6052): a
// translator in front of an IPv6-only server shows each IPv4 client as
// 64:ff9b::<its IPv4 address>. Grouped by /64, every IPv4 client would
// share one key.
var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// format renders a as a key: IPv4 as is (an address of the NAT64
// well-known prefix too, by the IPv4 address it carries), IPv6 masked to
// the prefix. The key of a client seen recently comes from the cache,
// without allocating.
func (c *clientIP) format(a netip.Addr) string {
	var p netip.Prefix
	if a.Is6() && nat64.Contains(a) {
		b := a.As16()
		a = netip.AddrFrom4([4]byte(b[12:]))
	}
	if !a.Is4() && c.v6bits != 128 {
		p, _ = a.Prefix(c.v6bits)
		a = p.Addr()
	}
	if k, ok := c.keys.get(a); ok {
		return k
	}
	var buf [64]byte
	b := append(buf[:0], tagIP...)
	if p.IsValid() {
		b = p.AppendTo(b)
	} else {
		b = a.AppendTo(b)
	}
	k := string(b)
	c.keys.put(a, k)
	return k
}
