package resilient

import (
	"fmt"
	"time"

	"github.com/ratewindow/ratewindow/core"
)

// Defaults of the options.
const (
	// defaultFailureThreshold is how many consecutive primary failures open
	// the breaker.
	defaultFailureThreshold = 5
	// defaultOpenInterval is how long the breaker stays open before it
	// lets one probe through.
	defaultOpenInterval = time.Second
	// defaultLocalMaxKeys bounds the entries of the fallback store and of
	// the deny cache, each.
	defaultLocalMaxKeys = 100_000
)

// Option configures a Store.
type Option func(*config)

type config struct {
	threshold    int
	interval     time.Duration
	clock        core.Clock
	onChange     func(from, to State)
	onFallback   func(key string, cause error)
	fallback     bool
	replicas     int
	denyCache    bool
	localMaxKeys int
}

// WithFailureThreshold sets how many consecutive primary failures open the
// breaker (default 5; with a Domainer primary, consecutive failures of one
// domain open its breaker). It must be at least 1.
func WithFailureThreshold(n int) Option { return func(c *config) { c.threshold = n } }

// WithOpenInterval sets how long the breaker stays open before one probe
// call goes to the primary (default 1s). It must be positive.
func WithOpenInterval(d time.Duration) Option { return func(c *config) { c.interval = d } }

// SetClock sets the clock the breaker measures its open interval on (the
// system clock by default); only the module's tests change it, through
// internal/clocktest.Option. The deny cache does not use it: it goes by the
// now of each decision.
func (c *config) SetClock(clock core.Clock) { c.clock = clock }

// WithOnStateChange sets a hook called on every change of State, in order,
// synchronously on the goroutine whose call caused it. With a Domainer
// primary, State is the worst state of the domains' breakers: the hook
// sees Closed to Open when the first domain's breaker opens, and a change
// to Closed only when every breaker is closed again; a domain's
// transition that leaves the worst state as it was is not reported. It
// runs under the breakers' lock: keep it short and do not call the Store
// from it (reading State is fine).
func WithOnStateChange(f func(from, to State)) Option {
	return func(c *config) { c.onChange = f }
}

// WithFallback makes the Store decide locally while the primary fails or
// the breaker is open, instead of returning an error. Every policy's Limit
// is divided by replicas (the number of application instances sharing the
// primary; at least 1 is kept), so the instances together admit about what
// the primary would. replicas must be at least 1.
//
// A fallback decision comes back marked, with a valid Result: the limiter
// turns it into a Decision with Fallback set and a nil error, and the
// middleware enforces it like any other (429 on denial), with
// Event.Decision.Fallback set. WithOnFallback observes it too. A caller of
// the Store's Take or Peek without a Limiter gets it as an error.
func WithFallback(replicas int) Option {
	return func(c *config) { c.fallback, c.replicas = true, replicas }
}

// WithOnFallback sets a hook called once for every decision the fallback
// makes, synchronously, with the key and the reason the primary was not
// used (an error wrapping ErrCircuitOpen, or the primary's error). It runs
// before the Store returns, so before the middleware's OnDecision hook for
// the same request. Keep it fast.
func WithOnFallback(f func(key string, cause error)) Option {
	return func(c *config) { c.onFallback = f }
}

// WithDenyCache remembers each denial the primary gives for a key and
// policy set until its RetryAfter has passed, and answers repeated requests
// for that key from memory, without calling the primary. See the package
// documentation for why that never denies a request the primary would
// allow.
func WithDenyCache() Option { return func(c *config) { c.denyCache = true } }

// WithLocalMaxKeys bounds the local state (default 100,000): the keys the
// deny cache remembers (each with at most 4 denials, one per policy set)
// and the (key, policy) entries of the fallback store, weighed as
// core/memory's WithMaxKeys weighs them (a sliding log by its records). The
// fallback store splits it in 16 shards and, like WithMaxKeys, refuses
// policies whose entries for one key, their Limits divided by the
// replicas, could weigh more than one shard's share: with the default, a
// key's sliding logs of up to about 12,000 records in all. It must be at
// least 1. Each shard keeps room for at least one key, and a shard's share
// is rounded down: the deny cache (64 shards) holds up to 64 keys for a
// bound below 64, the fallback store (16 shards) 16 entries for a bound
// below 16, and otherwise up to the bound.
func WithLocalMaxKeys(n int) Option { return func(c *config) { c.localMaxKeys = n } }

func (c *config) validate() error {
	switch {
	case c.threshold < 1:
		return fmt.Errorf("resilient: %w: WithFailureThreshold: must be at least 1, got %d", core.ErrInvalidConfig, c.threshold)
	case c.interval <= 0:
		return fmt.Errorf("resilient: %w: WithOpenInterval: must be positive, got %v", core.ErrInvalidConfig, c.interval)
	case c.fallback && c.replicas < 1:
		return fmt.Errorf("resilient: %w: WithFallback: replicas must be at least 1, got %d", core.ErrInvalidConfig, c.replicas)
	case c.localMaxKeys < 1:
		return fmt.Errorf("resilient: %w: WithLocalMaxKeys: must be at least 1, got %d", core.ErrInvalidConfig, c.localMaxKeys)
	}
	return nil
}
