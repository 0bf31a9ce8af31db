// Package keybound replaces long rate-limit keys by a fixed-length hash of
// themselves: the bound every key strategy of package keyfuncs applies, and
// the middleware applies to a user's own key func, in one form.
package keybound

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// MaxLen is the longest key, in bytes, kept as is.
const MaxLen = 128

// prefix marks a key that was replaced by its hash.
const prefix = "h:"

// HashedLen is the length of a hashed key: the prefix and 32 hex digits
// (128 bits of SHA-256).
const HashedLen = len(prefix) + 32

// Bound returns k, or its hash when k is longer than max bytes or could be
// mistaken for a hash (it starts with "h:"), so that a client sending the
// hashed form of someone's long key never reaches that key's quota.
func Bound(k string, max int) string {
	if len(k) <= max && !strings.HasPrefix(k, prefix) {
		return k
	}
	return Hash(k)
}

// BoundTagged is Bound(tag+k, max), without building tag+k when it is
// hashed: the key of a client's megabyte header costs no copy of it.
func BoundTagged(tag, k string, max int) string {
	if len(tag)+len(k) <= max {
		return Bound(tag+k, max)
	}
	return HashTagged(tag, k)
}

// Hash returns the fixed-length hashed form of k: "h:" and 32 hex digits
// of its SHA-256.
func Hash(k string) string { return HashTagged("", k) }

// HashTagged returns the hashed form of tag+k, without building tag+k on
// the heap: a short one is hashed from the stack, a long one as it is
// read (see hashLong).
func HashTagged(tag, k string) string {
	var buf [256]byte
	if len(tag)+len(k) <= len(buf) {
		n := copy(buf[:], tag)
		n += copy(buf[n:], k)
		return hashSum(sha256.Sum256(buf[:n]))
	}
	return hashLong(tag, k)
}

// hashLong is HashTagged for a long tag+k, written to the hash a piece at
// a time through a small buffer: converted to a []byte whole, as
// sha256.Sum256 takes it, a key of n bytes would cost n bytes of copy (an
// attacker's header sent as a key, once per request).
func hashLong(tag, k string) string {
	h := sha256.New()
	var buf [1024]byte
	for _, s := range [2]string{tag, k} {
		for s != "" {
			n := copy(buf[:], s)
			h.Write(buf[:n])
			s = s[n:]
		}
	}
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return hashSum(sum)
}

// hashSum renders a SHA-256 sum in the hashed form.
func hashSum(sum [sha256.Size]byte) string {
	var b [HashedLen]byte
	copy(b[:], prefix)
	hex.Encode(b[len(prefix):], sum[:16])
	return string(b[:])
}
