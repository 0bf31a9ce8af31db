package resilient

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/internal/callcheck"
	"github.com/ratewindow/ratewindow/core/internal/standin"
	"github.com/ratewindow/ratewindow/core/internal/sysclock"
	"github.com/ratewindow/ratewindow/internal/nilness"
)

// Store is a core.Store that guards a primary store with a circuit breaker
// (one per failure domain if the primary is a Domainer), an optional local
// fallback and an optional deny cache. Create one with New; it is safe for
// concurrent use.
type Store struct {
	primary    core.Store
	breaker    breaker    // the breaker, unless domains is set
	domains    *domains   // nil unless the primary is a Domainer
	fallback   *fallback  // nil: no fallback
	deny       *denyCache // nil: no deny cache
	onFallback func(key string, cause error)
	clock      core.Clock // times the primary's calls (see late)
	stats      counters
}

var _ core.Store = (*Store)(nil)

// New returns a Store that guards primary. Invalid options are reported as
// an error wrapping core.ErrInvalidConfig that names the option.
func New(primary core.Store, opts ...Option) (*Store, error) {
	if nilness.IsNil(primary) {
		return nil, fmt.Errorf("resilient: %w: primary store is nil", core.ErrInvalidConfig)
	}
	c := config{
		threshold:    defaultFailureThreshold,
		interval:     defaultOpenInterval,
		clock:        sysclock.Clock{},
		localMaxKeys: defaultLocalMaxKeys,
	}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	if err := c.validate(); err != nil {
		return nil, err
	}
	s := &Store{primary: primary, onFallback: c.onFallback, clock: c.clock}
	if d, ok := primary.(Domainer); ok {
		s.domains = newDomains(d, &c)
	} else {
		s.breaker = breaker{threshold: int64(c.threshold), interval: c.interval, clock: c.clock, onChange: c.onChange, mu: new(sync.Mutex)}
	}
	if c.fallback {
		s.fallback = newFallback(c.replicas, c.localMaxKeys)
	}
	if c.denyCache {
		s.deny = newDenyCache(c.localMaxKeys)
	}
	return s, nil
}

// State returns the breaker's state. With a Domainer primary it is the
// worst state of the domains' breakers: Open if any is open, else HalfOpen
// if any is half-open, else Closed.
//
// The breaker moves only when a call comes in (the Store has no timer):
// State is the state as of the last call. A breaker whose open interval
// has passed with no call since still reads Open, however long the
// primary has been well again; the next call probes it.
func (s *Store) State() State {
	if s.domains != nil {
		return State(s.domains.state.Load())
	}
	return State(s.breaker.state.Load())
}

// breakerFor returns the breaker that guards key.
func (s *Store) breakerFor(key string) *breaker {
	if s.domains != nil {
		return s.domains.breaker(key)
	}
	return &s.breaker
}

// Take implements core.Store. See the package documentation for the order
// in which the deny cache, the breaker, the primary and the fallback are
// consulted.
func (s *Store) Take(ctx context.Context, key string, policies []core.Policy, cost int64, now time.Time) (core.Result, error) {
	return s.decide(ctx, key, policies, cost, now, true)
}

// Peek implements core.Store.
func (s *Store) Peek(ctx context.Context, key string, policies []core.Policy, cost int64, now time.Time) (core.Result, error) {
	return s.decide(ctx, key, policies, cost, now, false)
}

// Reset implements core.Store. It clears the key's remembered denials and
// fallback counts, then resets the primary through the key's breaker:
// while that breaker is open it returns an error wrapping ErrCircuitOpen,
// since the primary's counts could not be reset.
func (s *Store) Reset(ctx context.Context, key string, policies []core.Policy) error {
	if s.deny != nil {
		sh, kh := s.deny.locate(key)
		s.deny.forget(sh, kh, key)
	}
	if s.fallback != nil {
		_ = s.fallback.reset(ctx, key, policies)
	}
	b := s.breakerFor(key)
	ok, probe, gen := b.admit()
	if !ok {
		s.stats.fastFails.Add(1)
		return ErrCircuitOpen
	}
	if probe != 0 {
		defer b.abandon(&probe)
	}
	if err := ctx.Err(); err != nil {
		b.record(probe, gen, neutral)
		probe = 0
		return fmt.Errorf("resilient: reset: %w", err)
	}
	err := s.primary.Reset(ctx, key, policies)
	if s.deny != nil {
		// Calls denied while the Reset was on its way may have been
		// denied before it: forget them, and keep those still running
		// from remembering theirs.
		sh, kh := s.deny.locate(key)
		s.deny.reset(sh, kh, key)
	}
	o := classify(ctx, err)
	b.record(probe, gen, o)
	probe = 0
	if o == failure {
		s.stats.primaryErrors.Add(1)
	}
	return err
}

func (s *Store) decide(ctx context.Context, key string, policies []core.Policy, cost int64, now time.Time, charge bool) (core.Result, error) {
	if err := callcheck.Check(policies, cost); err != nil {
		// A call no store can decide is the caller's mistake: neither the
		// breaker nor the fallback (whose local store would fail on it)
		// sees it, whatever the breaker's state.
		return core.Result{}, fmt.Errorf("resilient: %w", err)
	}
	var (
		sh    *denyShard
		kh    uint64
		epoch uint64
	)
	if s.deny != nil {
		sh, kh = s.deny.locate(key)
		if r, ok := s.deny.lookup(sh, kh, key, policies, cost, now); ok {
			s.stats.denyHits.Add(1)
			return r, nil
		}
		epoch = sh.resets.Load()
	}
	b := s.breakerFor(key)
	ok, probe, gen := b.admit()
	if !ok {
		s.stats.fastFails.Add(1)
		return s.degrade(key, policies, cost, now, charge, ErrCircuitOpen)
	}
	if probe != 0 {
		defer b.abandon(&probe)
	}
	if err := ctx.Err(); err != nil {
		// Out of time before the primary was asked: not the primary's
		// fault, and nothing left to wait for. A caller that cancelled
		// gets its error back, as it would from the primary: nobody
		// waits for a decision, and the primary has not failed.
		b.record(probe, gen, neutral)
		probe = 0
		err = fmt.Errorf("resilient: %w", err)
		if errors.Is(err, context.Canceled) {
			return core.Result{}, err
		}
		return s.degrade(key, policies, cost, now, charge, err)
	}
	var r core.Result
	var err error
	start := s.clock.Now()
	if charge {
		r, err = s.primary.Take(ctx, key, policies, cost, now)
	} else {
		r, err = s.primary.Peek(ctx, key, policies, cost, now)
	}
	o := classify(ctx, err)
	b.record(probe, gen, o)
	probe = 0
	if s.deny != nil && (o != success || !charge && !denied(&r, len(policies))) {
		// The call may have moved the key's counts to now, however it
		// ended: a denial remembered at a later instant (the clock
		// stepped back) no longer holds. A denial and an allowed Take
		// settle the key's denials below.
		s.deny.stepBack(sh, kh, key, now)
	}
	switch o {
	case failure:
		s.stats.primaryErrors.Add(1)
		return s.degrade(key, policies, cost, late(now, start, s.clock.Now()), charge, err)
	case neutral:
		return r, err
	}
	if s.deny != nil {
		if denied(&r, len(policies)) {
			s.deny.remember(sh, kh, key, policies, cost, now, &r, epoch)
		} else if charge {
			s.deny.forget(sh, kh, key)
		}
	}
	return r, nil
}

// degrade answers when the primary could not: from the fallback if there
// is one, else with cause.
func (s *Store) degrade(key string, policies []core.Policy, cost int64, now time.Time, charge bool, cause error) (core.Result, error) {
	if s.fallback == nil {
		return core.Result{}, cause
	}
	s.stats.fallbacks.Add(1)
	if s.onFallback != nil {
		s.onFallback(key, cause)
	}
	return s.fallback.decide(key, policies, cost, now, charge), standin.ErrFallback
}

// late returns the instant a call that began at now reaches the fallback,
// once the primary failed it: now plus the time the primary took
// (measured on the Store's clock, from start to end). A primary that ran
// out of time may have taken longer than a policy's window, and the
// fallback, asked at now, would take the call for a clock stepped back
// and move the key's local counts to that instant: the calls that come at
// the true time would then find them in a finished window, a second quota.
func late(now, start, end time.Time) time.Time {
	if d := end.Sub(start); d > 0 {
		return now.Add(d)
	}
	return now
}

// denied reports whether some policy of r denies.
func denied(r *core.Result, n int) bool {
	for i := range n {
		if !r.States[i].Allowed {
			return true
		}
	}
	return false
}
