// Package options holds the settings that package ratewindow's options
// fill in and that the shared request flow (internal/middleware) reads.
//
// Settings is generic in the handler and event types only because those
// are declared in package ratewindow, which imports this package: the
// parameters are always ratewindow.Handler and ratewindow.Event.
package options

import (
	"fmt"
	"time"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/headers"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

// Settings is the configuration of one middleware instance. The zero value
// of each field is the documented default of its option.
type Settings[Handler, Event any] struct {
	Limiter             *core.Limiter
	LimiterFunc         func(r keyfuncs.Request, key string) (*core.Limiter, error)
	KeyFunc             keyfuncs.KeyFunc
	CostFunc            func(r keyfuncs.Request) int64
	Skip                func(r keyfuncs.Request) bool
	ObserveOnly         bool
	ObserveOnlyFunc     func(r keyfuncs.Request) bool
	FailClosed          bool
	Timeout             time.Duration
	Headers             headers.Writer
	DenyHandler         Handler
	ErrorHandler        Handler
	UnclassifiedHandler Handler
	PassUnclassified    bool
	OnDecision          func(Event)

	// Resolve, set by package config's options, chooses a request's key,
	// limiter and mode from one snapshot of a configuration (see
	// Resolve). The flow calls it once per request. KeyFunc, LimiterFunc
	// and ObserveOnlyFunc, when set by options after it, each replace
	// the part Resolve would give.
	Resolve Resolve

	// Errs are the mistakes the options found in their arguments.
	Errs []error
}

// NilArg records that option was given a nil function.
func (s *Settings[H, E]) NilArg(option string) {
	s.Errs = append(s.Errs, fmt.Errorf("%w: %s(nil): a nil function is a mistake, leave the option out to get the default", core.ErrInvalidConfig, option))
}

// Err reports the first mistake an option found, or nil.
func (s *Settings[H, E]) Err() error {
	if len(s.Errs) == 0 {
		return nil
	}
	return s.Errs[0]
}

// Resolve looks a request up once in one snapshot of a configuration and
// returns its key (when need.Key is set), its limiter and its mode (when
// need.Mode is set), all from that snapshot, so that a reload never gives
// one request the key of one configuration and the limits or mode of
// another.
//
// The error is about the key: keyfuncs.ErrSkip when nothing limits the
// request (its Resolved is then empty), or the key strategy's error, with
// the limiter and the mode still given. Without need.Key (a KeyFunc of
// the user's keys the request) only ErrSkip is returned.
type Resolve func(r keyfuncs.Request, need Need) (Resolved, error)

// Need is what the flow takes from a Resolve: the parts that options of
// the user's replace are not asked for, so that no request pays for
// them.
type Need struct {
	// Key is set when no KeyFunc replaces the resolver's key.
	Key bool
	// Mode is set when neither an ObserveOnlyFunc, which replaces the
	// resolver's mode, nor ObserveOnly, which observes every request,
	// makes it moot.
	Mode bool
}

// Resolved is what a Resolve found for one request.
type Resolved struct {
	// Key is the request's rate-limit key, when it was asked for.
	Key string
	// Limiter limits the request; when it is nil, LimiterErr says why,
	// and the flow handles it as it handles a WithLimiterFunc error.
	Limiter    *core.Limiter
	LimiterErr error
	// ObserveOnly is the request's mode, when it was asked for: true to
	// observe, false to enforce.
	ObserveOnly bool
}
