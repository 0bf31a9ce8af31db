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
