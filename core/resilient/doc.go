// Package resilient keeps a rate limiter working when its store does not.
//
// It is a core.Store decorator: wrap the store a Limiter uses, and every
// limiter and every HTTP adapter gets the same protection.
//
//	primary, err := redisstore.New(client)
//	...
//	store, err := resilient.New(primary,
//		resilient.WithFallback(4),  // 4 app instances share this Redis
//		resilient.WithDenyCache(),
//	)
//	...
//	limiter, err := core.NewLimiter(store, policies)
//
// # Circuit breaker
//
// Every call to the primary store ends as a success, a failure or neither.
// Any error counts as a failure, a context deadline included (a store too
// slow to answer is failing); caller mistakes (core.ErrInvalidCost,
// core.ErrEmptyKey, core.ErrInvalidConfig) and contexts the caller
// cancelled count as neither, and are returned as they are.
//
// After WithFailureThreshold consecutive failures (default 5) the breaker
// opens: for WithOpenInterval (default 1s) no call reaches the primary. Each
// call fails at once with an error wrapping ErrCircuitOpen, so a dead Redis
// costs nothing per request instead of a timeout each. Then one call, the
// probe, goes through (State is HalfOpen while it runs; other calls still
// fail fast). If it succeeds the breaker closes; if it fails (or panics)
// the breaker opens for another interval. A probe that has not answered
// within an open interval (a primary with no timeout of its own, a
// context with no deadline) is given up: the next call goes as a new
// probe. The given-up probe's answer, when it comes, closes the breaker if
// it is a success and the breaker has stayed half-open since that probe
// started; otherwise it is ignored. So is the end of any other call that
// started before the breaker last opened: its failure tells of the outage
// the breaker opened for, and must not count against a primary that a
// probe has found answering since. WithOnStateChange reports each
// transition. Transitions happen only when a call comes in (there is no
// timer): a breaker that opened and then got no call reads Open until the
// next call, whatever the primary does meanwhile, so an Open State tells
// of the primary as of the last call. On a Redis Cluster all of this
// happens per master (see Failure domains).
//
// # Failure domains
//
// A primary that implements Domainer, as core/redisstore's Store does,
// names the failure domain of each key: on a Redis Cluster, the master
// that serves the key's slot. The Store then keeps a breaker per domain,
// created on the domain's first call, and everything above holds per
// domain: the failures of one master's keys open that master's breaker,
// and only its keys fail fast (or fall back) while the other masters' keys
// keep reaching Redis. A key whose slot moves to another master consults
// that master's breaker from its next call on. At most 64 domains get a
// breaker of their own; further ones share one. Any other primary (a
// memory store, a standalone Redis) has one breaker for all its keys.
//
// State is then the worst state of the breakers: Open while any is open,
// else HalfOpen while any is probing, else Closed. It reads Closed only
// while every domain is trusted, and WithOnStateChange reports each change
// of it, in order; a domain's transition that leaves it as it was is not
// reported. A domain that no call asks for any more (a master whose slots
// went to a replica at another address) does not hold State open for
// ever: a breaker that has been open (or half-open, its probe unanswered)
// for ten open intervals beyond its own without a call for its domain is
// forgotten (State may then go from Open straight to Closed), and the
// domain, if it is asked for again, starts with a closed breaker.
//
// # Local fallback
//
// With WithFallback(replicas), a call that the breaker stops, or whose
// primary call fails, is decided on a local in-memory store instead of
// returning an error. Each policy's Limit is divided by replicas (at least
// 1 is kept) so that the application instances, each limiting alone, admit
// together about what the shared store would. The local decision is
// marked: the Limiter turns it into a Decision with Fallback set and a nil
// error, and the middleware enforces it, headers and
// 429 included (the Decision's Limit is the configured one, its Remaining
// is counted against the local share). WithOnFallback is called for it.
// A cost above a policy's local share is charged to that policy as its
// whole share, and to the other policies as itself. The
// local counts start empty when the primary first fails and are not copied
// back when it recovers: during an outage a client can get up to its local
// share on top of what it had used on the primary. Nor are they cleared
// then: an outage within the same window goes on from them, so a primary
// that keeps failing and recovering gives no fresh local share each time.
//
// One resilient Store may wrap another. To the outer one, the inner one's
// fallback answer is an error like any other: it counts as a failure, and
// the outer fallback decides with its own share.
//
// # Deny cache
//
// With WithDenyCache, a denial from the primary for (key, policy set,
// cost) is remembered until its RetryAfter has passed, measured on the
// decisions' own now (a fake clock works, over a primary that decides on
// it: the Redis store decides on Redis's clock unless built with
// redisstore.WithClientTime, and a fake clock that stands still then
// keeps a denial the primary has long lifted). Meanwhile a Take or Peek
// for the same key, policy set and cost is answered from memory: the same
// states, RetryAfter and ResetAfter reduced by the time elapsed (a policy
// whose own RetryAfter has passed is reported as allowing). An attacker
// hammering one key costs one primary call per RetryAfter instead of one
// per request.
//
// Apart from the cases it cannot see (below), it never denies what the
// primary would allow, because
//
//   - time only relaxes a limit, and a denied request is not charged: a
//     denial at t whose longest RetryAfter is R still holds at any t' < t+R
//     (requests admitted meanwhile for this key, by other processes or
//     under another policy set sharing a policy's counts, only make it
//     stricter);
//   - the policy set is identified by every policy's Name, Window,
//     Algorithm and Limit, so a Limiter's SetPolicies, or another Limiter
//     on the same Store, never meets a denial computed for other limits;
//   - Reset through this Store forgets the key's denials, and an allowed
//     Take forgets them too;
//   - a denial is reused only for the same cost (a smaller one may fit);
//   - a denial is reused only at its own instant or later, and a call for
//     the key that the primary answers at an earlier instant (the clock
//     stepped back) once the denial is remembered drops it, whatever that
//     call's policy set and answer (an error included):
//     the primary may have moved the key's counts to that instant
//     (core/memory does, for an instant more than a window before them);
//   - decisions of the fallback are never remembered.
//
// It cannot see a Reset made on the primary directly or by another
// process, nor the key's counts moved by a clock step back of more than a
// window in a call it did not make (another process, another Store over
// the same primary) or in a call of its own that the primary decided
// after a denial that was still on its way back (two calls for the key in
// flight together across the step): until the remembered RetryAfter
// passes, this process keeps denying that key. Seeing the last case would
// cost every call a write shared by the key's shard. Remaining in a
// remembered denial is the value at the time of the denial: for a lone
// client never more than the primary would report now.
//
// The deny cache and the fallback store each hold at most WithLocalMaxKeys
// entries (default 100,000), in shards, dropping expired entries first. A
// limiter whose policies the fallback store could not hold for one key (a
// sliding log heavier than a shard's share, see WithLocalMaxKeys) is
// refused when it is built, as the primary's own refusals are.
//
// # Deadlines
//
// The Store does not start goroutines or timers of its own: it passes the
// caller's context to the primary (core/redisstore honours it) and, when
// the context is already done, answers without calling the primary: a
// cancelled call with the context's error (not a fallback decision:
// nobody waits for it, and the primary has not failed), an expired one as
// a primary call that ran out of time. While the breaker is open no call
// reaches that point: a cancelled one is decided by the fallback, like
// any other.
package resilient
