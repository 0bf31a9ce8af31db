// Package topkeys shows who is being rate limited: a heavy-hitters summary
// of the keys that were denied, or would have been denied in observe-only
// mode, per route and policy, in a fixed amount of memory whatever the
// number of distinct keys.
//
// Metrics never carry the key (one series per client would be unbounded);
// a Summary keeps the few keys that matter instead. Feed it from the
// middleware's OnDecision hook and serve it on a debug endpoint:
//
//	top, err := topkeys.New(1000, topkeys.WithKeySecret(secret))
//	...
//	mw, err := nethttp.New(limiter, ratewindow.WithOnDecision(top.Observe))
//	mux.Handle("GET /debug/ratewindow/top", top.Handler())
//
// # Algorithm and error bound
//
// A Summary runs Space-Saving (Metwally, Agrawal and El Abbadi, 2005) over
// the items (route, binding policy, key) of denied and would-deny
// decisions, with k counters. A tracked item's counter is incremented; an
// untracked item replaces the item with the smallest counter m and starts
// at m + 1, remembering m as its error. With N events counted so far:
//
//   - every reported count over-estimates the item's true count by at most
//     its error, and error ≤ N/k: count − error ≤ true count ≤ count;
//   - every item whose true count is above N/k is tracked, so the true top
//     items are never missed once they stand out from the tail;
//   - an untracked item's true count is at most the smallest counter,
//     served by the Handler as error_bound (0 until all k counters are in
//     use, while every count is exact), itself at most N/k.
//
// # Counts since the start, no decay
//
// Counts are never decayed nor reset: they run from the Summary's
// creation (the process's start, as a rule). A key that flooded
// yesterday keeps its count and its place, and a key denied now enters
// with the smallest count as its error, so the report says who has been
// limited most since the start, not who is limited now. last_seen tells
// the two apart, or compare two reports taken a few minutes apart: an
// item whose error is the same in both was counted exactly meanwhile, its
// count's growth is the number of its denials in between. A Summary that
// should follow only recent traffic is best replaced on a timer by a
// fresh one, behind a hook and a handler of your own that both read the
// current Summary (the Handler serves the Summary it was taken from, so
// one taken once would report the first Summary forever), all made with
// one WithKeySecret: without it each draws its own secret, and a key's
// key_hash would change at each replacement (see Example_rotate).
//
// # Memory and cost
//
// A Summary holds at most k entries, each with its route, policy and key
// strings, and an index of them: memory is bounded by k whatever the
// traffic, about 700 bytes per entry with short keys plus the key lengths,
// which the middleware bounds at 128 bytes.
//
// Observe returns at once for allowed, skipped and failed requests. For a
// denied request it takes one mutex, does a map lookup and moves one entry
// in a heap of k (O(log k)); it does not allocate when the item is already
// tracked. A new item copies its strings.
package topkeys
