package logging

import (
	"time"

	"github.com/ratewindow/ratewindow/core"
)

// keyMode says how a record shows the rate-limit key.
type keyMode uint8

const (
	keyHashed keyMode = iota
	keyOmitted
	keyRaw
)

// Option configures a Hook.
type Option func(*config)

type config struct {
	keys       keyMode
	secret     []byte
	denials    bool
	errorEvery time.Duration
	clock      core.Clock
}

// WithRawKeys makes records show the key itself, as "key", instead of its
// "key_hash". Only for keys that are neither secrets nor personal data.
//
// By default records carry "key_hash": 16 hex digits of an HMAC-SHA256 of
// the key. Records of one client can be matched with each other, but the
// key (an IP address, an API key) cannot be read back, nor guessed by
// hashing candidates, without the secret.
func WithRawKeys() Option { return func(c *config) { c.keys = keyRaw } }

// WithoutKeys makes records show nothing about the key.
func WithoutKeys() Option { return func(c *config) { c.keys = keyOmitted } }

// WithKeySecret sets the HMAC secret of the key hashes, so that every instance
// (and every restart) hashes a key alike and logs can be joined across
// them. Without it each Hook draws a random secret: hashes match within
// one process only. Keep the secret out of the logs.
func WithKeySecret(secret []byte) Option {
	return func(c *config) { c.secret = append([]byte(nil), secret...) }
}

// WithDenials also logs enforced denials (429), at Info. They are off by
// default: under an attack there is one per request, and the metrics count
// them better.
func WithDenials() Option { return func(c *config) { c.denials = true } }

// WithErrorEvery logs at most one limiter failure per d (per outcome:
// passed or rejected); the record carries "suppressed", the number of
// failures not logged since the previous one. During a store outage every
// request fails, so without it the log gets a line per request. Zero (the
// default) logs every failure.
func WithErrorEvery(d time.Duration) Option { return func(c *config) { c.errorEvery = d } }

// SetClock sets the clock WithErrorEvery measures time on (the system
// clock by default); only the module's tests change it, through
// internal/clocktest.Option.
func (c *config) SetClock(clock core.Clock) { c.clock = clock }

// wallClock is the default clock: time.Now.
type wallClock struct{}

func (wallClock) Now() time.Time { return time.Now() }
