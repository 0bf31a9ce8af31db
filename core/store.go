package core

import (
	"context"
	"time"
)

// Store keeps the counters behind a Limiter. Implementations must be safe
// for concurrent use and must evaluate all policies of one call atomically:
// no other call for the same key may interleave.
//
// Every Store reaches the same decisions for the same sequence of (now, key,
// policies, cost); core/storetest checks that.
type Store interface {
	// Take evaluates every policy for key at now and, only if all of them
	// allow cost more units, charges cost to each. Policies are those of a
	// Limiter (validated, named) and 0 < cost ≤ every Limit; key is not
	// empty. A
	// Result that core/resilient's local fallback computed comes with an
	// error the Limiter recognises (and turns into a Decision with Fallback
	// set); any other error means no Result.
	Take(ctx context.Context, key string, policies []Policy, cost int64, now time.Time) (Result, error)
	// Peek reports what Take would decide, without charging anything.
	Peek(ctx context.Context, key string, policies []Policy, cost int64, now time.Time) (Result, error)
	// Reset forgets every count of key under the given policies.
	Reset(ctx context.Context, key string, policies []Policy) error
}
