package client

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/ratewindow/ratewindow/core"
)

// Defaults of a round tripper built without options.
const (
	defaultMaxRetries = 3
	defaultMaxWait    = time.Minute
	defaultJitter     = 0.05
	// defaultProbeWait bounds how long requests hold for the answer to
	// a probe (see state.reserve) before the next one goes in its place.
	defaultProbeWait = time.Second
)

// Option configures the round tripper New returns.
type Option func(*config) error

type config struct {
	maxRetries    int
	maxWait       time.Duration
	jitter        float64
	nonIdempotent bool
	pace          bool
	key           func(*http.Request) string
	probeWait     time.Duration

	// now and sleep are time.Now and a timer wait; tests replace them
	// with a fake clock.
	now   func() time.Time
	sleep func(ctx context.Context, d time.Duration) error
}

func defaults() config {
	return config{maxRetries: defaultMaxRetries, maxWait: defaultMaxWait, jitter: defaultJitter, pace: true, key: hostKey, probeWait: defaultProbeWait, now: time.Now, sleep: sleep}
}

// WithMaxRetries sets the retry budget of one request: how many times it
// is sent again after a 429 or a 503 (default 3; 0 never retries).
func WithMaxRetries(n int) Option {
	return func(c *config) error {
		if n < 0 {
			return fmt.Errorf("%w: client: WithMaxRetries: %d is negative", core.ErrInvalidConfig, n)
		}
		c.maxRetries = n
		return nil
	}
}

// WithMaxWait sets the longest wait (default one minute). A Retry-After,
// a back-off after a refusal that says nothing of when to come back, or a
// paced wait, longer than this is not waited for: the response is
// returned, or the request sent, at once. It bounds a request's pacing in
// all, not each wait: however often the others with its key take the
// quota a reset brings while it waits, it is sent once another wait would
// end more than this after it began to wait for its turn (and once this
// has passed, it holds for no probe). Each retry waits for its turn anew.
func WithMaxWait(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return fmt.Errorf("%w: client: WithMaxWait: %v is not positive", core.ErrInvalidConfig, d)
		}
		c.maxWait = d
		return nil
	}
}

// WithJitter sets the jitter added to every wait, as a fraction of the
// wait: each wait w becomes a random duration in [w, w×(1+f)]. The default,
// 0.05, keeps many clients told the same time from arriving at once; 0
// turns jitter off.
func WithJitter(f float64) Option {
	return func(c *config) error {
		if !(f >= 0 && f <= 1) {
			return fmt.Errorf("%w: client: WithJitter: %v is not between 0 and 1", core.ErrInvalidConfig, f)
		}
		c.jitter = f
		return nil
	}
}

// WithRetryNonIdempotent allows retrying requests whose method is not
// idempotent (POST, PATCH, ...). Without it only GET, HEAD, OPTIONS,
// TRACE, PUT and DELETE, and requests carrying an Idempotency-Key or
// X-Idempotency-Key header, are retried.
func WithRetryNonIdempotent() Option {
	return func(c *config) error {
		c.nonIdempotent = true
		return nil
	}
}

// WithKey sets how requests are grouped into one shared quota: requests
// with the same key share what the server said about the limit. The
// default is the request's host, and its port unless it is the scheme's
// default (a host's name in any case, with or without a trailing dot, its
// default port written or not, is one key), and the Host field's host when
// the request sets one other than its URL's (each tenant reached through
// one address is a key of its own); an API that limits per token can be
// keyed by host and token.
func WithKey(key func(*http.Request) string) Option {
	return func(c *config) error {
		if key == nil {
			return fmt.Errorf("%w: client: WithKey: nil func", core.ErrInvalidConfig)
		}
		c.key = key
		return nil
	}
}

// WithoutPacing turns pacing off: requests are sent as soon as they are
// made, and only 429 and 503 responses are waited on and retried.
func WithoutPacing() Option {
	return func(c *config) error {
		c.pace = false
		return nil
	}
}
