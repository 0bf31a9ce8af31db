package logging

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
)

// keyAttr returns the attribute that shows key under the configured mode,
// and false when nothing is to be logged.
func (h *hook) keyAttr(key string) (slog.Attr, bool) {
	if key == "" {
		return slog.Attr{}, false
	}
	switch h.keys {
	case KeyHashed:
		return slog.String("key_hash", hashKey(h.secret, key)), true
	case KeyRaw:
		return slog.String("key", key), true
	}
	return slog.Attr{}, false
}

// hashKey returns the first 8 bytes of HMAC-SHA256(secret, key) in hex:
// enough to tell clients apart in logs, too little to be worth reversing.
func hashKey(secret []byte, key string) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(key))
	var sum [sha256.Size]byte
	return hex.EncodeToString(m.Sum(sum[:0])[:8])
}

// randomSecret returns a fresh 32-byte secret.
func randomSecret() []byte {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails on the supported platforms
	return b
}
