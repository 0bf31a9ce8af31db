package keyfuncs

import "strings"

// Every key a built-in strategy returns is "tag:payload", where the tag
// names the strategy and never contains ':'. Two strategies therefore never
// share a key, and within one strategy the payload is unambiguous: a header
// value "ip:192.0.2.1" becomes "hdr:x-api-key:ip:192.0.2.1", never the key
// of the client at 192.0.2.1.
const (
	tagIP      = "ip:"
	tagHeader  = "hdr:"
	tagContext = "ctx:"
	tagRoute   = "route:"
	tagPath    = "path:"
	tagConst   = "const:"
	tagCompose = "cmp:"
	// tagBearer is hashed with the token, never written out: a bearer
	// token's key is the hash of "bearer:" and the token.
	tagBearer = "bearer:"
)

// reservedTags are the namespaces of the built-in strategies, which a
// Prefix must not claim. "bearer" is among them although no key shows it:
// Prefix("bearer", f) would hash to the key of the bearer token its part
// spells.
var reservedTags = []string{"ip", "hdr", "ctx", "route", "path", "const", "cmp", "h", "bearer"}

// escapeBytes returns s with every byte in set, and every '%', written as
// %XX (upper-case hex). s is returned as is, without allocating, when it
// holds none of them, which is the common case.
func escapeBytes(s, set string) string {
	if !strings.ContainsAny(s, set) && !strings.Contains(s, "%") {
		return s
	}
	const hexDigits = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' || strings.IndexByte(set, c) >= 0 {
			b.WriteByte('%')
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&15])
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
