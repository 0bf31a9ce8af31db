// Package peers puts ratewindow and the rate limiters a Go user would pick
// instead behind one small interface, so that benchmarks and the accuracy
// comparison drive every one of them the same way.
//
// Every adapter is built from a limit L and a window W and must admit exactly
// L requests for one key at one instant (TestAdmitsExactlyLimit proves it),
// so "faster" and "more accurate" compare the same promise:
//
//   - ratewindow: core.Limiter on core/memory, one adapter per algorithm.
//   - httprate: go-chi/httprate's in-memory LimitCounter, driven exactly as
//     httprate's RateLimiter.OnLimit drives it (one mutex around Get, the
//     sliding estimate and IncrementBy), without the response headers.
//   - sethvargo: sethvargo/go-limiter's memorystore.
//   - ulule: ulule/limiter/v3 on its memory store.
//   - throttled: throttled/v2's GCRA limiter on its memstore, with a burst
//     of L so that L requests pass at once.
//   - xrate: golang.org/x/time/rate, a token bucket of L refilled at L per W;
//     "xrate-one" is one bucket shared by all keys (no per-key state at all,
//     the lower bound of any limiter) and "xrate-map" is the common idiom of
//     a map of buckets under one mutex.
//
// Peers that accept an injected clock run on a core.Clock; the others read
// the wall clock themselves (Peer.RealTimeOnly).
package peers
