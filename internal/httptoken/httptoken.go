// Package httptoken recognises RFC 9110 tokens, such as header names, for
// the packages that check them when they are configured (keyfuncs, config).
package httptoken

// tokenChars marks the bytes that may appear in an RFC 9110 token.
var tokenChars = func() (t [256]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = true, true
	}
	for _, c := range "!#$%&'*+-.^_`|~" {
		t[c] = true
	}
	return t
}()

// Char reports whether c may appear in an RFC 9110 token.
func Char(c byte) bool { return tokenChars[c] }

// Valid reports whether s is a non-empty RFC 9110 token, such as a header
// name.
func Valid(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !tokenChars[s[i]] {
			return false
		}
	}
	return true
}
