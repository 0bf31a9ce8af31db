package core

import (
	"context"
	"time"
)

// Store keeps the counters behind a Limiter. Implementations must be safe
// for concurrent use and must evaluate all policies of one call atomically:
// no other call for the same key may interleave.
//
// Every Store reaches the same decisions for the same sequence of (instant,
// key, policies, cost); core/storetest checks that. One case is left open:
// a call whose clock stepped back into a window of its key that an earlier
// call had already passed may find that window's counts reclaimed on one
// store and kept on another (see Clock steps in the package doc). The instant is the now
// passed in, unless the Store decides on a clock of its own: the Redis store
// does by default, on Redis's clock (redisstore.WithClientTime makes it
// decide on now).
type Store interface {
	// Take evaluates every policy for key at now and, only if all of them
	// allow cost more units, charges cost to each. Policies are those of a
	// Limiter (validated, named) and 0 < cost ≤ every Limit; key is not
	// empty. A Result that core/resilient's local fallback computed comes
	// with an error the Limiter recognises (and turns into a Decision with
	// Fallback set); any other error means no Result.
	Take(ctx context.Context, key string, policies []Policy, cost int64, now time.Time) (Result, error)
	// Peek reports what Take would decide, without charging anything.
	Peek(ctx context.Context, key string, policies []Policy, cost int64, now time.Time) (Result, error)
	// Reset forgets every count of key under the given policies.
	Reset(ctx context.Context, key string, policies []Policy) error
}

// PolicyChecker is implemented by a Store that cannot hold every valid set
// of policies, such as a memory store whose cap is too small for one key's
// sliding log. NewLimiter and SetPolicies pass it their policies, validated
// and named as Take will get them, and refuse them on error (wrapped in
// ErrInvalidConfig, with nothing changed), so the mistake shows when the
// limiter is built or reconfigured rather than on the request path.
//
// CheckPolicies must not modify or keep the slice. A Store that wraps
// another should forward the call.
type PolicyChecker interface {
	CheckPolicies(policies []Policy) error
}

// LocalStore is implemented by a Store that may keep its counts in the
// memory of this process, such as the memory store. Several processes
// that each build one (replicas of a service, Fiber's Prefork children)
// count apart, and a client whose requests they share gets the limit once
// per process. ProcessLocal reports whether this store does so. A Store
// that wraps another should forward the call, as core/resilient does for
// its primary. A Store that does not implement LocalStore is taken to be
// shared.
type LocalStore interface {
	ProcessLocal() bool
}
