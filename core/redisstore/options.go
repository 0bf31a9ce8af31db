package redisstore

import (
	"fmt"
	"strings"

	"github.com/ratewindow/ratewindow/core"
)

// defaultPrefix starts every key the store writes unless WithPrefix says
// otherwise. It is short because every byte of a key name is held in Redis
// for every tracked key.
const defaultPrefix = "rw"

// Option configures a Store.
type Option func(*config)

type config struct {
	prefix     string
	clientTime bool
}

// WithPrefix sets the first part of every key (default "rw"), so several
// applications can share one Redis. It must not be empty and must not hold
// '{' or '}', which would move the cluster hash tag. A short prefix keeps
// keys small (see the package doc, Keys).
func WithPrefix(prefix string) Option { return func(c *config) { c.prefix = prefix } }

// WithClientTime makes the scripts decide on the now passed to Take and
// Peek (the Limiter's Clock) instead of Redis's clock, the default.
//
// Use it for tests on a fake clock, and for decisions identical to the
// memory store's on the same times. Without it a Limiter on a fake clock
// (core.WithClock) far from real time still decides on Redis's clock:
// moving the fake clock on frees nothing. On a fleet, use it only where
// the processes' clocks agree to well within a window: processes whose
// clocks differ by more than a window keep no limit between them, and a
// sliding log is exact only to within their skew (see the package doc,
// Time).
//
// A caller's clock at most half a second behind Redis's keeps the compact
// data layout; one further behind writes the full form (see the package
// doc, Data layout).
func WithClientTime() Option { return func(c *config) { c.clientTime = true } }

// WithServerTime makes the scripts read the time from Redis (the TIME
// command), ignoring the now passed to Take and Peek. It is the default;
// it undoes an earlier WithClientTime.
func WithServerTime() Option { return func(c *config) { c.clientTime = false } }

func (c *config) validate() error {
	switch {
	case c.prefix == "":
		return fmt.Errorf("redisstore: %w: WithPrefix: prefix must not be empty", core.ErrInvalidConfig)
	case strings.ContainsAny(c.prefix, "{}"):
		return fmt.Errorf("redisstore: %w: WithPrefix: prefix %q must not contain '{' or '}'", core.ErrInvalidConfig, c.prefix)
	}
	return nil
}
