package keyfuncs

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// DefaultMaxKeyLen is the longest key, in bytes, that the built-in
// strategies return as is. Longer keys are hashed (see Bounded).
const DefaultMaxKeyLen = 128

// hashedKeyPrefix marks a key that was replaced by its hash.
const hashedKeyPrefix = "h:"

// hashedKeyLen is the length of a hashed key: the prefix and 32 hex digits
// (128 bits of SHA-256).
const hashedKeyLen = len(hashedKeyPrefix) + 32

// Bounded caps the keys of f at max bytes: a longer key is replaced by
// "h:" followed by 32 hex digits of its SHA-256, so two different long keys
// still get different quotas while costing a fixed 34 bytes. max below 34
// is raised to 34 (a hash must fit). A key that itself starts with "h:" is
// hashed too, whatever its length, so a client that sends the hashed form
// of someone's long key never lands in that key's quota. Errors from f pass
// through; a nil f gives an error wrapping ErrNoKey on every request.
func Bounded(max int, f KeyFunc) KeyFunc {
	if max < hashedKeyLen {
		max = hashedKeyLen
	}
	return mapKey(f, func(k string) string { return boundKey(k, max) })
}

// boundKey returns k, or its hash when k is longer than max bytes or could
// be mistaken for a hash (it starts with the hashed prefix).
func boundKey(k string, max int) string {
	if len(k) <= max && !strings.HasPrefix(k, hashedKeyPrefix) {
		return k
	}
	return hashKey(k)
}

// hashKey returns the fixed-length hashed form of k.
func hashKey(k string) string {
	return hashSum(sha256.Sum256([]byte(k)))
}

// hashTagged returns the hashed form of tag+k, without building tag+k on
// the heap when it is short.
func hashTagged(tag, k string) string {
	var buf [256]byte
	if len(tag)+len(k) <= len(buf) {
		n := copy(buf[:], tag)
		n += copy(buf[n:], k)
		return hashSum(sha256.Sum256(buf[:n]))
	}
	return hashKey(tag + k)
}

// hashSum renders a SHA-256 sum in the hashed form.
func hashSum(sum [sha256.Size]byte) string {
	var b [hashedKeyLen]byte
	copy(b[:], hashedKeyPrefix)
	hex.Encode(b[len(hashedKeyPrefix):], sum[:16])
	return string(b[:])
}
