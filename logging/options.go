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
	keys        keyMode
	secret      []byte
	denials     bool
	errorEvery  time.Duration
	denialEvery time.Duration
	clock       core.Clock
}

// defaultErrorEvery is how often, at most, a store failure record is
// logged by default, per outcome.
const defaultErrorEvery = time.Second

// defaultDenialEvery is how often, at most, a would-deny, a denial or an
// unclassified record is logged by default, for each outcome.
const defaultDenialEvery = time.Second

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
// them better. Like would-deny records they are throttled (see
// WithDenialEvery).
func WithDenials() Option { return func(c *config) { c.denials = true } }

// WithDenialEvery logs at most one record per d (default 1s) for each of
// the outcomes a client can cause at will: would-deny, denied (with
// WithDenials; for both, the store's decisions and core/resilient's local
// fallback's apart), and a request that could not be classified (no key,
// an invalid cost), rejected or passed. The record carries "suppressed", the
// number of records of that outcome not logged since the previous one;
// when records are held back and none comes after them, the first is
// written at the end of the interval, counting the others. A
// client decides how many of its requests are denied, or would be, or
// carry no key: without a bound, one flooding an observe-only canary would
// make the server write a line per request. Zero (or less) logs every one;
// keep that for a logger whose volume is bounded some other way.
//
// The throttle is one per outcome, not per client, so a flood of one
// client holds back the records of the others too: the record that gets
// through names one client, the suppressed count says how many requests
// went unlogged, and package topkeys names the clients most often denied,
// in fixed memory, whatever the flood.
func WithDenialEvery(d time.Duration) Option { return func(c *config) { c.denialEvery = d } }

// WithErrorEvery logs at most one store failure per d (default 1s; per
// outcome: passed or rejected, and allowed or denied by core/resilient's
// local fallback); the record carries "suppressed", the
// number of failures not logged since the previous one (written at the
// end of the interval if no failure comes after them, see
// WithDenialEvery). During a store
// outage every request fails: without a bound the log would get a line
// per request, adding its own load to the outage. Zero (or less) logs
// every failure.
func WithErrorEvery(d time.Duration) Option { return func(c *config) { c.errorEvery = d } }

// SetClock sets the clock WithErrorEvery and WithDenialEvery measure time on (the system
// clock by default); only the module's tests change it, through
// internal/clocktest.Option. The timer that writes an interval's held-back
// count runs on the clock's AfterFunc(d, f) method; a clock without one
// has no timer, and counts wait for the next record.
func (c *config) SetClock(clock core.Clock) { c.clock = clock }

// wallClock is the default clock: time.Now.
type wallClock struct{}

func (wallClock) Now() time.Time { return time.Now() }

// AfterFunc runs f in its own goroutine once d has passed.
func (wallClock) AfterFunc(d time.Duration, f func()) { time.AfterFunc(d, f) }
