package topkeys

import (
	"crypto/rand"

	"github.com/ratewindow/ratewindow/core"
)

// KeyMode says how the Handler shows keys.
type KeyMode uint8

// The key modes.
const (
	// KeyHashed (the default) shows "key_hash": 16 hex digits of an
	// HMAC-SHA256 of the key, as package logging does, so that entries can
	// be matched with log records hashed with the same secret, while the
	// key itself (an IP address, an API key) cannot be read back.
	KeyHashed KeyMode = iota
	// KeyRaw shows the key itself as "key". Only for keys that are
	// neither secrets nor personal data.
	KeyRaw
)

// Option configures a Summary.
type Option func(*config)

type config struct {
	keys   KeyMode
	secret []byte
	clock  core.Clock
}

// WithKey sets how the Handler shows keys (default KeyHashed). An unknown
// mode is a configuration error.
func WithKey(m KeyMode) Option { return func(c *config) { c.keys = m } }

// WithKeySecret sets the HMAC secret of KeyHashed. Give it the secret of
// logging.WithKeySecret to find a hashed key of the Handler in the logs.
// Without it each Summary draws a random secret.
func WithKeySecret(secret []byte) Option {
	return func(c *config) { c.secret = append([]byte(nil), secret...) }
}

// WithClock sets the clock that stamps LastSeen (the system clock by
// default); tests pass a *core.FakeClock.
func WithClock(clock core.Clock) Option { return func(c *config) { c.clock = clock } }

func randomSecret() []byte {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails on the supported platforms
	return b
}
