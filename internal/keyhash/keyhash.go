// Package keyhash hashes rate-limit keys for display, the same way in the
// logs (package logging) and in the top-keys report (package topkeys), so
// that one client's entries can be matched across both.
package keyhash

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
)

// Hash returns the first 8 bytes of HMAC-SHA256(secret, key) in hex: enough
// to tell clients apart, too little to be worth reversing.
func Hash(secret []byte, key string) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(key))
	var sum [sha256.Size]byte
	return hex.EncodeToString(m.Sum(sum[:0])[:8])
}

// NewSecret returns a fresh random 32-byte secret.
func NewSecret() []byte {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails on the supported platforms
	return b
}
