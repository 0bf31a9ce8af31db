// Package client is the other half of a rate limit: an http.RoundTripper
// for Go programs that call a rate-limited API, this library's or anyone's.
//
//	t, err := client.New(nil) // over http.DefaultTransport
//	if err != nil {
//		return err
//	}
//	c := &http.Client{Transport: t, Timeout: 30 * time.Second}
//	resp, err := c.Get("https://api.example/items")
//
// # What it does
//
// Pacing. Every response's rate-limit fields are read and remembered per
// host (or per key chosen with [WithKey]). When the quota is used up
// (remaining reaches 0) the next request waits for the reset the server
// announced, and a millisecond more (a server counting in milliseconds may
// round the reset down by that much), before it is sent, so a caller that
// stays within the limit never sees a 429 at all. When a used-up quota's
// reset passes, or a Retry-After, the transport cannot know how much quota
// came back: one request goes first, and the others with its key hold
// until its response says, so they do not all go out at once into 429s
// (a probe not answered within a second is replaced by the next request;
// no request holds past MaxWait or half the time left before its
// deadline). A key seen for the first time knows nothing: its first requests
// go out at once. The transport reads every dialect in use:
//
//	RateLimit: "default";r=25;t=5          (draft-08 and later; the most restrictive policy wins; t may be left out)
//	RateLimit: limit=100, remaining=25, reset=5   (draft-07)
//	RateLimit-Remaining: 25 / RateLimit-Reset: 5  (drafts 00 to 06)
//	X-RateLimit-Remaining: 25 / X-RateLimit-Reset: 5 or a Unix time
//
// A response with fields in several dialects (an API gateway's limit
// beside the application's) is read as several policies: the most
// restrictive wins; one limit sent both as a delta and as a Unix time
// (read against a Date cut to whole seconds) is one limit, and the delta
// is kept. A reset sent without the remaining count (draft-07 makes it
// optional) is read on a 429 or 503 only: nothing is left until it.
//
// The fields of a response a cache has held (an Age above 0) are stale,
// and ignored, as the drafts advise.
//
// Retrying. A 429 or 503 response is retried after its Retry-After
// (delta-seconds or an HTTP-date; without one, after the announced reset,
// else after a back-off), within the retry budget ([WithMaxRetries], 3 by
// default). With pacing on, Retry-After also holds back every other
// request with the same key until it has passed (unless it is longer than
// [WithMaxWait]: no request waits for that). A Retry-After takes
// precedence over a later reset in the same response, as the drafts
// require: the key is sent to again after the Retry-After. A refusal that
// says nothing of when to come back backs the whole key off: half a
// second, doubled for each such refusal in a row, at most 30 s (a
// back-off longer than MaxWait is not waited for: the refusal is
// returned); with pacing on, the key's other requests wait it out too (at
// most MaxWait of it), and then one goes first.
//
// Jitter. Every wait is stretched by a random share of up to 5% ([WithJitter]),
// so clients told the same time do not all come back at once.
//
// # Guarantees
//
//   - A request is retried only when it can be sent again unchanged: its
//     body is nil, http.NoBody, or can be recreated through GetBody (as
//     http.NewRequest arranges for bytes and strings readers), and its
//     method is idempotent (GET, HEAD, OPTIONS, TRACE, PUT, DELETE, or any
//     method with an Idempotency-Key or X-Idempotency-Key header) unless
//     [WithRetryNonIdempotent] is given.
//   - No wait outlasts the request's context: a wait that would end after
//     its deadline (jitter included), or that the server asks for longer
//     than [WithMaxWait] (one minute by default), is not started. A retry
//     then stops and the caller gets the 429 or 503 itself; a paced
//     request is sent at once and the server answers for itself. MaxWait
//     also bounds a request's paced waits in all, so a request that others
//     with its key overtake at every reset is not held for ever.
//     Cancelling the context ends a wait at once.
//   - When the transport stops retrying, the caller gets the server's last
//     response, never a synthesised one.
//   - The transport is safe for concurrent use, and waits in the goroutine
//     of the request that waits. It starts no goroutine of its own; the one
//     timer that acts by itself closes the body of a refusal it discards,
//     when that body is still arriving after 100 ms (the retry does not
//     wait for it).
//
// Pacing is as good as the numbers the server sends: the fields are in
// whole seconds, and concurrent requests in flight are counted against
// the quota only when sent through the same round tripper from New.
package client
