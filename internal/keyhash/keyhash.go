// Package keyhash hashes rate-limit keys under a secret, so that what is
// shown of a key cannot be reversed: for display, the same way in the logs
// (package logging) and in the top-keys report (package topkeys), so that
// one client's entries can be matched across both; and for the partition
// key of the RateLimit fields (internal/headerfmt).
package keyhash

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
)

// Sum returns HMAC-SHA256(secret, key). A plain hash would not do: the
// IPv4 space is small enough to reverse one by trying every address.
func Sum(secret []byte, key string) [sha256.Size]byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(key))
	var sum [sha256.Size]byte
	m.Sum(sum[:0])
	return sum
}

// Hash returns the first 8 bytes of Sum(secret, key) in hex: enough to
// tell clients apart, too little to be worth reversing.
func Hash(secret []byte, key string) string {
	sum := Sum(secret, key)
	return hex.EncodeToString(sum[:8])
}

// NewSecret returns a fresh random 32-byte secret.
func NewSecret() []byte {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails on the supported platforms
	return b
}
