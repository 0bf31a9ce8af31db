package keyfuncs

import (
	"net/netip"
	"strings"
)

// maxChain is how many rightmost entries of a forwarding chain are kept.
// Entries further left could only matter behind more trusted proxies than
// that; they are otherwise whatever the client chose to send.
const maxChain = 32

// entry is one address of a forwarding chain; ok is false when it did not
// parse.
type entry struct {
	addr netip.Addr
	ok   bool
}

// chain holds the last maxChain entries of a forwarding chain in a ring,
// oldest (leftmost) first. It lives on the stack.
type chain struct {
	ring  [maxChain]entry
	n     int // entries held, at most maxChain
	start int // index of the leftmost entry held
}

// push appends an entry on the right, dropping the leftmost when full.
func (ch *chain) push(e entry) {
	if ch.n < maxChain {
		ch.ring[(ch.start+ch.n)%maxChain] = e
		ch.n++
		return
	}
	ch.ring[ch.start] = e
	ch.start = (ch.start + 1) % maxChain
}

// at returns the i-th entry held, 0 being the leftmost.
func (ch *chain) at(i int) entry { return ch.ring[(ch.start+i)%maxChain] }

// readXFF parses X-Forwarded-For lines, joined in order.
func (ch *chain) readXFF(lines []string) {
	for _, line := range lines {
		for line != "" {
			var item string
			if i := strings.IndexByte(line, ','); i >= 0 {
				item, line = line[:i], line[i+1:]
			} else {
				item, line = line, ""
			}
			item = trimOWS(item)
			if item == "" {
				continue // empty list elements are allowed and ignored
			}
			a, ok := parseHostPort(item)
			ch.push(entry{a, ok})
		}
	}
}

// readForwarded parses RFC 7239 Forwarded lines, joined in order, keeping the
// for= parameter of each element. An element without one, or with a value
// that is not an address ("unknown", "_hidden"), is an unparsable entry.
func (ch *chain) readForwarded(lines []string) {
	for _, line := range lines {
		p := fwdParser{s: line}
		for p.more() {
			v, ok := p.element()
			if !ok {
				ch.push(entry{})
				continue
			}
			a, ok := parseHostPort(v)
			ch.push(entry{a, ok})
		}
	}
}

// parseHostPort parses "1.2.3.4", "1.2.3.4:80", "::1", "[::1]" or
// "[::1]:80". The zone is dropped and IPv4-mapped IPv6 is unmapped.
func parseHostPort(s string) (netip.Addr, bool) {
	s = trimOWS(s)
	if s == "" {
		return netip.Addr{}, false
	}
	host := s
	if s[0] == '[' {
		end := strings.IndexByte(s, ']')
		if end < 0 || !validPort(s[end+1:]) {
			return netip.Addr{}, false
		}
		host = s[1:end]
	} else if i := strings.IndexByte(s, ':'); i >= 0 && strings.IndexByte(s[i+1:], ':') < 0 {
		if !validPort(s[i:]) {
			return netip.Addr{}, false
		}
		host = s[:i]
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}, false
	}
	return a.Unmap().WithZone(""), true
}

// validPort accepts "" or ":" followed by 1 to 5 digits.
func validPort(s string) bool {
	if s == "" {
		return true
	}
	if s[0] != ':' || len(s) < 2 || len(s) > 6 {
		return false
	}
	for i := 1; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// trimOWS trims spaces and tabs.
func trimOWS(s string) string {
	for s != "" && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	for s != "" && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	return s
}
