package keyfuncs

import "github.com/ratewindow/ratewindow/internal/keybound"

// maxKeyLen is the longest key, in bytes, that the built-in strategies, and
// the middleware for a key func of your own, keep as is. A longer key is
// replaced by "h:" and 32 hex digits of its SHA-256.
const maxKeyLen = keybound.MaxLen

// boundKey returns k, or its hash when k is longer than max bytes or could
// be mistaken for a hash (it starts with "h:").
func boundKey(k string, max int) string { return keybound.Bound(k, max) }

// boundTagged is boundKey(tag+k, maxKeyLen), without copying k when the
// key is hashed: a client's megabyte header costs no copy of it.
func boundTagged(tag, k string) string { return keybound.BoundTagged(tag, k, maxKeyLen) }
