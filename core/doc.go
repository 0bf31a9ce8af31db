// Package core is the framework-agnostic heart of ratewindow: policies, the
// three rate-limiting algorithms, the Store interface and the Limiter that
// ties them together.
//
// # Policies and algorithms
//
// A [Policy] allows Limit units of cost per Window. Each policy names one of
// three algorithms:
//
//   - [FixedWindow]: one counter per epoch-aligned window [k·W, (k+1)·W).
//     Cheapest; a client can spend 2·L across a window boundary.
//   - [SlidingLog]: exact. One record (instant, running total) is kept per
//     admitted request, whatever its cost, and never for a denied one, so no
//     rolling interval of length W, in real time, ever holds more than L.
//     Memory per key grows with the requests admitted in a window (at most
//     L, and at most one record per millisecond), not with their cost.
//   - [SlidingWindow] (the zero value): two epoch-aligned buckets; the
//     previous one is weighted by how much of it still overlaps the rolling
//     window: estimate = prev × (W − elapsed)/W + curr. Constant memory,
//     close to exact on real traffic.
//
// All arithmetic is done on integer milliseconds, so every Store (memory,
// Redis Lua) reaches the same decisions for the same instants (see Clocks
// for the instants the Redis store decides on), except after a clock step
// back into a window already passed (see Clock steps).
//
// # Clock steps
//
// A clock that steps back behind a key's state never hands out quota again,
// and never locks the key out for long: up to a window behind, the state
// counts as it is and every wait is measured from the stepped clock (a
// client waiting RetryAfter is let in); more than a window behind, the
// state is moved to the present with its counts kept, so the key recovers
// within about a window instead of when the clock reaches the old state.
// A state whose window is over may be reclaimed (on memory by a sweep, on
// Redis by its TTL): a call whose clock stepped back into that window finds
// it gone (the key starts afresh, within the limit in real time if the
// clock that passed the window was not ahead) or kept, so two stores may
// then decide that key differently.
//
// # Several policies, one decision
//
// A [Limiter] holds up to [MaxPolicies] policies (say 10/s and 600/min). A
// request is allowed only if every policy allows it, and only then is its
// cost charged to every policy. The [Decision] names the binding policy and
// carries every policy's state for the header writer.
//
// # Stores
//
// A [Store] evaluates and charges all policies of one key atomically, in one
// call. ratewindow ships an in-memory store (core/memory) and a Redis store
// (core/redisstore); core/storetest is the conformance suite both pass (the
// Redis store with redisstore.WithClientTime, deciding on the instants the
// suite passes).
// Counts belong to a key and a policy's Name, Window and Algorithm, not to a
// Limiter: limiters sharing a store share the counts of policies named
// alike (see NewLimiter).
//
// # Clocks
//
// A Limiter reads the time from a [Clock]: the system clock by default
// (exact, one clock read per decision), or in tests any Clock of your own
// that moves only when told. The Store decides on the instants the Limiter
// passes, except the Redis store, which by default decides on Redis's
// clock (redisstore.WithClientTime makes it use the Limiter's).
package core
