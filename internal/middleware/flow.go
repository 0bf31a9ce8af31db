package middleware

import (
	"fmt"
	"net/http"
	"time"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/headerfmt"
	"github.com/ratewindow/ratewindow/internal/keybound"
	"github.com/ratewindow/ratewindow/internal/options"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

// Flow is a compiled middleware configuration. It is immutable and safe for
// concurrent use.
type Flow struct {
	limiter     *core.Limiter
	limiterFunc func(keyfuncs.Request, string) (*core.Limiter, error)
	// resolve gives what key, limiterFunc and observeFunc leave nil (see
	// options.Resolve), need saying which of the key and the mode it is
	// asked for; key is nil only when resolve gives the key.
	resolve     options.Resolve
	need        options.Need
	key         keyfuncs.KeyFunc
	cost        func(keyfuncs.Request) int64
	skip        func(keyfuncs.Request) bool
	observe     bool
	observeFunc func(keyfuncs.Request) bool
	failClosed  bool
	timeout     time.Duration
	headers     headerfmt.Writer
	deny        ratewindow.Handler
	onError     ratewindow.Handler
	unclass     ratewindow.Handler
	passUnclass bool
	hook        func(ratewindow.Event)
	// fails logs limiter failures to slog.Default() when there is no
	// hook (nil when there is one): a dead store is never silent.
	fails *failLogs
	// unusable marks a flow that serves nothing (see Unusable).
	unusable bool
}

// Settings are the resolved options of one middleware instance.
type Settings = options.Settings[ratewindow.Handler, ratewindow.Event]

// minTimeout is the shortest WithTimeout accepted. A network store cannot
// answer sooner, so a shorter bound (WithTimeout(50), meant as
// milliseconds, is 50ns) would turn every call into an error.
const minTimeout = time.Millisecond

// New checks cfg and compiles it. Every problem is an error wrapping
// core.ErrInvalidConfig that names the option.
func New(cfg Settings) (*Flow, error) {
	if err := cfg.Err(); err != nil {
		return nil, err
	}
	if cfg.Limiter == nil && cfg.LimiterFunc == nil && cfg.Resolve == nil {
		return nil, fmt.Errorf("%w: the limiter is nil (pass a *core.Limiter, or set WithLimiterFunc)", core.ErrInvalidConfig)
	}
	if cfg.Limiter != nil && cfg.Limiter.Policies() == nil {
		return nil, fmt.Errorf("%w: the limiter was not made by core.NewLimiter", core.ErrInvalidConfig)
	}
	if cfg.Timeout < 0 {
		return nil, fmt.Errorf("%w: WithTimeout: the timeout must not be negative, got %v", core.ErrInvalidConfig, cfg.Timeout)
	}
	if cfg.Timeout > 0 && cfg.Timeout < minTimeout {
		return nil, fmt.Errorf("%w: WithTimeout: %v is shorter than a store call, so every request would be a store error (and pass, failing open); give a time.Duration of at least %v, such as 50*time.Millisecond", core.ErrInvalidConfig, cfg.Timeout, minTimeout)
	}
	hw, err := headerWriter(cfg.Headers)
	if err != nil {
		return nil, fmt.Errorf("WithHeaders: %w", err)
	}
	if cfg.Limiter != nil {
		if err := headerfmt.ValidatePolicyNames(cfg.Limiter.Policies()); err != nil {
			return nil, fmt.Errorf("limiter: %w", err)
		}
	}
	f := &Flow{
		limiter:     cfg.Limiter,
		limiterFunc: cfg.LimiterFunc,
		resolve:     cfg.Resolve,
		key:         cfg.KeyFunc,
		cost:        cfg.CostFunc,
		skip:        cfg.Skip,
		observe:     cfg.ObserveOnly,
		observeFunc: cfg.ObserveOnlyFunc,
		failClosed:  cfg.FailClosed,
		timeout:     cfg.Timeout,
		headers:     hw,
		deny:        cfg.DenyHandler,
		onError:     cfg.ErrorHandler,
		unclass:     cfg.UnclassifiedHandler,
		passUnclass: cfg.PassUnclassified,
		hook:        cfg.OnDecision,
	}
	if f.hook == nil {
		f.fails = newFailLogs()
	}
	switch {
	case f.key == nil && f.resolve == nil:
		f.key = keyfuncs.RemoteIP
	case f.key != nil:
		// A user's own KeyFunc may return anything a client sends (an
		// 8 KB header): every key the stores see is bounded.
		f.key = boundedKeys(f.key)
	}
	// The resolver's mode is moot under an observe-only func, which
	// replaces it, and under WithObserveOnly(true), which observes all.
	f.need = options.Need{Key: f.key == nil, Mode: f.observeFunc == nil && !f.observe}
	f.deny = handlerOr(f.deny, denyResponse, http.StatusTooManyRequests)
	f.onError = handlerOr(f.onError, unavailableResponse, http.StatusServiceUnavailable)
	f.unclass = handlerOr(f.unclass, unclassifiedResponse, http.StatusBadRequest)
	return f, nil
}

// handlerOr is the user's handler h, guarded (see guarded) with the
// status of def, or def when h is nil.
func handlerOr(h, def ratewindow.Handler, status int) ratewindow.Handler {
	if h == nil {
		return def
	}
	return guarded(h, status)
}

// FromOptions applies opts in order (nil ones ignored) to settings holding
// the limiter l and compiles them: the body of every adapter's New.
func FromOptions(l *core.Limiter, opts []ratewindow.Option) (*Flow, error) {
	cfg := Settings{Limiter: l}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	return New(cfg)
}

// Default compiles the default options over l, for the adapters' one-line
// Limit forms, which cannot return an error. A mistake (a nil l, one
// core.NewLimiter did not make, or policy names the headers cannot tell
// apart) gives a flow that serves nothing:
// every request is answered 503 and reported with Outcome
// UnclassifiedRejected and an Err wrapping ratewindow.ErrNoLimiter.
func Default(l *core.Limiter) *Flow {
	f, err := FromOptions(l, nil)
	if err == nil {
		return f
	}
	return Unusable(err)
}

// Unusable returns a flow that serves nothing, for a Limit form given a
// limiter it refuses: every request is answered 503 and reported with
// Outcome UnclassifiedRejected and an Err wrapping
// ratewindow.ErrNoLimiter and err. A Limit form has no hook, so the
// requests are logged to slog.Default() as limiter failures are (Error,
// at most one record per second, see failLogs).
func Unusable(err error) *Flow {
	err = fmt.Errorf("%w: %w", ratewindow.ErrNoLimiter, err)
	f, _ := New(Settings{
		LimiterFunc: func(keyfuncs.Request, string) (*core.Limiter, error) {
			return nil, err
		},
	})
	f.unclass = unavailableResponse // the default response, not a user's: unguarded
	f.unusable = true
	return f
}

// boundedKeys returns user's keys bounded as the built-in strategies bound
// theirs: a key over keybound.MaxLen bytes, or one that looks
// hashed, is replaced by its hash.
func boundedKeys(user keyfuncs.KeyFunc) keyfuncs.KeyFunc {
	return func(r keyfuncs.Request) (string, error) {
		k, err := user(r)
		if err != nil {
			return "", err
		}
		return keybound.Bound(k, keybound.MaxLen), nil
	}
}
