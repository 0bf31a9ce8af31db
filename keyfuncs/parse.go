package keyfuncs

import (
	"net/netip"
	"strings"
)

// maxChain is how many rightmost entries of a forwarding chain are read.
// Entries further left could only matter behind more trusted proxies than
// that; they are otherwise whatever the client chose to send. Reading from
// the right and stopping there bounds the work an attacker's megabyte of
// X-Forwarded-For can cause to 32 address parses.
const maxChain = 32

// entry is one address of a forwarding chain; ok is false when it did not
// parse.
type entry struct {
	addr netip.Addr
	ok   bool
}

// chain holds up to maxChain entries of a forwarding chain, rightmost
// first: e[0] was appended last. It lives on the stack.
type chain struct {
	e [maxChain]entry
	n int
}

// full reports whether no more entries fit.
func (ch *chain) full() bool { return ch.n == maxChain }

// addLeft adds the entry to the left of those held.
func (ch *chain) addLeft(e entry) {
	if ch.n < maxChain {
		ch.e[ch.n] = e
		ch.n++
	}
}

// readXFF reads X-Forwarded-For lines, joined in order, from the right.
func (ch *chain) readXFF(lines []string) {
	for li := len(lines) - 1; li >= 0 && !ch.full(); li-- {
		line := lines[li]
		for line != "" && !ch.full() {
			var item string
			if i := strings.LastIndexByte(line, ','); i >= 0 {
				item, line = line[i+1:], line[:i]
			} else {
				item, line = line, ""
			}
			item = trimOWS(item)
			if item == "" {
				continue // empty list elements are allowed and ignored
			}
			a, ok := parseHostPort(item)
			ch.addLeft(entry{a, ok})
		}
	}
}

// readForwarded reads RFC 7239 Forwarded lines, joined in order, from the
// right, keeping the for= parameter of each element. An element without
// one, or with a value that is not an address ("unknown", "_hidden"), is an
// unparsable entry. A quote opened in one line never reaches into the next.
func (ch *chain) readForwarded(lines []string) {
	for li := len(lines) - 1; li >= 0 && !ch.full(); li-- {
		line := lines[li]
		for line != "" && !ch.full() {
			var item string
			item, line = lastElement(line)
			item = trimOWS(item)
			if item == "" {
				continue
			}
			p := fwdParser{s: item}
			v, ok := p.element()
			if !ok {
				ch.addLeft(entry{})
				continue
			}
			a, ok := parseNode(v)
			ch.addLeft(entry{a, ok})
		}
	}
}

// parseNode parses the value of a Forwarded for= parameter: an address as
// parseHostPort reads it, whose port may also be an obfuscated identifier
// (RFC 7239 section 6.3: "192.0.2.43:_hidden", "[2001:db8::17]:_x"). Such a
// proxy hides the port, not the address, which is the client's key.
func parseNode(v string) (netip.Addr, bool) {
	if i := strings.LastIndex(v, ":_"); i >= 0 && obfPort(v[i+2:]) {
		v = v[:i]
	}
	return parseHostPort(v)
}

// obfPort reports whether s, the part of an obfuscated port after its
// '_', is one or more letters, digits, '.', '_' or '-'.
func obfPort(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return s != ""
}

// lastElement splits a Forwarded line at its last comma outside a quoted
// string, scanning from the right: a quote preceded by an odd number of
// backslashes inside a quoted string is escaped. The elements your proxies
// appended, on the right, are well-formed, so they are split exactly
// whatever the client wrote to their left.
func lastElement(line string) (elem, rest string) {
	quoted := false
	for i := len(line) - 1; i >= 0; i-- {
		switch line[i] {
		case '"':
			if !quoted || !escaped(line, i) {
				quoted = !quoted
			}
		case ',':
			if !quoted {
				return line[i+1:], line[:i]
			}
		}
	}
	return line, ""
}

// escaped reports whether line[i] is preceded by an odd number of
// backslashes.
func escaped(line string, i int) bool {
	n := 0
	for j := i - 1; j >= 0 && line[j] == '\\'; j-- {
		n++
	}
	return n%2 == 1
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
