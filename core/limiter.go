package core

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/ratewindow/ratewindow/core/internal/standin"
	"github.com/ratewindow/ratewindow/core/internal/sysclock"
	"github.com/ratewindow/ratewindow/internal/nilness"
)

// Limiter applies a set of policies to keys, backed by a Store. It is safe
// for concurrent use; its policies can be replaced at run time with
// SetPolicies. Make one with NewLimiter: a nil or zero Limiter answers
// every call with an error wrapping ErrInvalidConfig.
type Limiter struct {
	store    Store
	clock    Clock
	policies atomic.Pointer[policySet]
}

// policySet is a validated set of policies with what every request checks
// against them precomputed.
type policySet struct {
	policies []Policy
	minLimit int64 // the smallest Limit: a cost above it can never pass
}

func newPolicySet(policies []Policy) *policySet {
	ps := &policySet{policies: policies, minLimit: policies[0].Limit}
	for _, p := range policies[1:] {
		ps.minLimit = min(ps.minLimit, p.Limit)
	}
	return ps
}

// check validates one request against the set.
func (ps *policySet) check(key string, cost int64) error {
	if key == "" {
		return ErrEmptyKey
	}
	if cost <= 0 || cost > ps.minLimit {
		return checkCost(ps.policies, cost)
	}
	return nil
}

// Option configures a Limiter.
type Option func(*Limiter)

// WithClock makes the limiter read time from c (the system clock by
// default). Tests pass a fake clock that moves only when told. A store may
// decide on a clock of its own and ignore c: the Redis store does so by
// default, deciding on Redis's clock; built with redisstore.WithClientTime,
// it decides on c.
func WithClock(c Clock) Option { return func(l *Limiter) { l.clock = c } }

// NewLimiter returns a Limiter that enforces policies on store. Policies are
// validated: one to MaxPolicies of them, distinct names, each Limit in
// 1..MaxLimit and each Window a whole number of milliseconds from 1ms to
// about 97 years; a policy without a Name is named after its Window, such
// as "1m" (two of them with the same Window must be told apart by a Name).
// A store that implements PolicyChecker checks them too (a memory store
// with WithMaxKeys refuses a sliding log its cap cannot hold). Any problem
// is returned as an error wrapping ErrInvalidConfig.
//
// Limiters may share a store. A store counts per key and per policy Name,
// Window and Algorithm, not per Limiter: two limiters on one store (one per
// route, say) whose policies are named alike, both unnamed PerMinute(100)
// for instance, spend the same counts for a key. Name each route's policies
// ("search", "upload") to keep them apart; name them alike to share a
// quota on purpose (plans, see ratewindow.WithLimiterFunc).
func NewLimiter(store Store, policies []Policy, opts ...Option) (*Limiter, error) {
	if nilness.IsNil(store) {
		return nil, fmt.Errorf("%w: nil Store", ErrInvalidConfig)
	}
	l := &Limiter{store: store, clock: sysclock.Clock{}}
	for _, o := range opts {
		if o != nil {
			o(l)
		}
	}
	if nilness.IsNil(l.clock) {
		return nil, fmt.Errorf("%w: nil Clock", ErrInvalidConfig)
	}
	if err := l.SetPolicies(policies...); err != nil {
		return nil, err
	}
	return l, nil
}

// SetPolicies replaces the limiter's policies. Counts are kept for every
// policy whose Name, Window and Algorithm are unchanged, so a Limit can be
// raised or lowered without a restart. They are validated as NewLimiter
// validates them, the store's PolicyChecker included. On error nothing
// changes.
func (l *Limiter) SetPolicies(policies ...Policy) error {
	if l == nil || l.store == nil {
		return errUnbuilt
	}
	ps, err := validatePolicies(policies)
	if err != nil {
		return err
	}
	if c, ok := l.store.(PolicyChecker); ok {
		if err := c.CheckPolicies(ps); err != nil {
			if !errors.Is(err, ErrInvalidConfig) {
				err = fmt.Errorf("%w: %w", ErrInvalidConfig, err)
			}
			return err
		}
	}
	l.policies.Store(newPolicySet(ps))
	return nil
}

// Policies returns the limiter's current policies. Do not modify them.
func (l *Limiter) Policies() []Policy {
	if set := l.policySet(); set != nil {
		return set.policies
	}
	return nil
}

// errUnbuilt is the error of a Limiter that NewLimiter did not make.
var errUnbuilt = fmt.Errorf("%w: a Limiter must be made by NewLimiter", ErrInvalidConfig)

// policySet returns the limiter's policies, or nil for a nil or zero
// Limiter (one that NewLimiter did not make).
func (l *Limiter) policySet() *policySet {
	if l == nil {
		return nil
	}
	return l.policies.Load()
}

// ProcessLocal reports whether the limiter's store keeps its counts in
// this process only (see LocalStore): then every process that builds such
// a limiter applies its policies alone. An adapter that knows it runs as
// one of several processes of one server (fibermw under Fiber's Prefork)
// refuses such a limiter.
func (l *Limiter) ProcessLocal() bool {
	if l == nil {
		return false
	}
	s, ok := l.store.(LocalStore)
	return ok && s.ProcessLocal()
}

// Clock returns the limiter's clock (nil for a Limiter that NewLimiter did
// not make).
func (l *Limiter) Clock() Clock {
	if l == nil {
		return nil
	}
	return l.clock
}

// Allow is AllowN with a cost of 1.
func (l *Limiter) Allow(ctx context.Context, key string) (d Decision, err error) {
	err = l.evaluate(ctx, &d, key, 1, true)
	return d, err
}

// AllowN decides whether a request of the given cost is admitted for key
// and, if every policy allows it, charges the cost to each. A store error is
// returned as is (wrapped with context by the store); the caller chooses to
// fail open or closed. An answer of core/resilient's local fallback is a
// Decision with Fallback set and a nil error.
func (l *Limiter) AllowN(ctx context.Context, key string, cost int64) (d Decision, err error) {
	err = l.evaluate(ctx, &d, key, cost, true)
	return d, err
}

// Peek reports what AllowN(ctx, key, cost) would decide now, without
// charging anything.
func (l *Limiter) Peek(ctx context.Context, key string, cost int64) (d Decision, err error) {
	err = l.evaluate(ctx, &d, key, cost, false)
	return d, err
}

// evaluate asks the store (Take when charge, else Peek) and writes the answer
// into the zero Decision *d, which it leaves zero on error. Allow, AllowN
// and Peek write through it rather than return each other's Decision: a
// Decision is over 200 bytes, and each extra copy costs.
func (l *Limiter) evaluate(ctx context.Context, d *Decision, key string, cost int64, charge bool) (err error) {
	set := l.policySet()
	if set == nil {
		return errUnbuilt
	}
	if err := set.check(key, cost); err != nil {
		return err
	}
	policies := set.policies
	if charge {
		d.result, err = l.store.Take(ctx, key, policies, cost, l.clock.Now())
	} else {
		d.result, err = l.store.Peek(ctx, key, policies, cost, l.clock.Now())
	}
	if err != nil {
		if !errors.Is(err, standin.ErrFallback) {
			*d = Decision{}
			return err
		}
		d.Fallback = true // a valid answer, from a stand-in
	}
	d.Policies = policies
	decide(d)
	return nil
}

// Reset forgets every count the limiter's policies hold for key.
func (l *Limiter) Reset(ctx context.Context, key string) error {
	set := l.policySet()
	if set == nil {
		return errUnbuilt
	}
	if key == "" {
		return ErrEmptyKey
	}
	return l.store.Reset(ctx, key, set.policies)
}
