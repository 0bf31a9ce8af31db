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
	serverTime bool
}

// WithPrefix sets the first part of every key (default "rw"), so several
// applications can share one Redis. It must not be empty and must not hold
// '{' or '}', which would move the cluster hash tag. A short prefix keeps
// keys small (see the package doc, Keys).
func WithPrefix(prefix string) Option { return func(c *config) { c.prefix = prefix } }

// WithServerTime makes the script read the time from Redis (the TIME
// command) instead of using the now passed to Take and Peek, so application
// nodes whose clocks disagree still agree on every window. Every key is
// then written in its compact form (see the package doc, Data layout).
func WithServerTime() Option { return func(c *config) { c.serverTime = true } }

func (c *config) validate() error {
	switch {
	case c.prefix == "":
		return fmt.Errorf("redisstore: %w: WithPrefix: prefix must not be empty", core.ErrInvalidConfig)
	case strings.ContainsAny(c.prefix, "{}"):
		return fmt.Errorf("redisstore: %w: WithPrefix: prefix %q must not contain '{' or '}'", core.ErrInvalidConfig, c.prefix)
	}
	return nil
}
