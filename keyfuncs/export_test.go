package keyfuncs

import "github.com/ratewindow/ratewindow/internal/keybound"

// Bounded caps the keys of f at max bytes (at least keybound.HashedLen), as
// the middleware caps a user's key func at maxKeyLen.
func Bounded(n int, f KeyFunc) KeyFunc {
	n = max(n, keybound.HashedLen)
	return mapKey(f, func(k string) string { return boundKey(k, n) })
}

// Path keys requests by URL path as received, e.g. "path:/users/42": the
// tests' key with a namespace of its own (the "path" tag stays reserved).
func Path(r Request) (string, error) {
	return boundKey(tagPath+r.Path(), maxKeyLen), nil
}
