package topkeys

import (
	"time"

	"github.com/ratewindow/ratewindow/core"
)

// Option configures a Summary.
type Option func(*config)

type config struct {
	raw    bool
	secret []byte
	clock  core.Clock
}

// WithRawKeys makes the Handler show each key itself, as "key", instead of
// its "key_hash". Only for keys that are neither secrets nor personal data.
//
// By default the Handler shows "key_hash": 16 hex digits of an HMAC-SHA256
// of the key, as package logging does, so that entries can be matched with
// log records hashed with the same secret, while the key itself (an IP
// address, an API key) cannot be read back.
func WithRawKeys() Option { return func(c *config) { c.raw = true } }

// WithKeySecret sets the HMAC secret of the key hashes. Give it the secret of
// logging.WithKeySecret to find a hashed key of the Handler in the logs.
// Without it each Summary draws a random secret.
func WithKeySecret(secret []byte) Option {
	return func(c *config) { c.secret = append([]byte(nil), secret...) }
}

// SetClock sets the clock that stamps LastSeen (the system clock by
// default); only the module's tests change it, through
// internal/clocktest.Option.
func (c *config) SetClock(clock core.Clock) { c.clock = clock }

// wallClock is the default clock: time.Now.
type wallClock struct{}

func (wallClock) Now() time.Time { return time.Now() }
