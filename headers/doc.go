// Package headers writes the rate-limit response fields for a decision.
//
// A [Writer] turns a core.Decision into header fields through a
// set(name, value) func, so it works with any framework. The modes are
// named after the revisions of draft-ietf-httpapi-ratelimit-headers that
// define them, as other limiters and clients name them. The default,
// [Draft8], writes the syntax of draft-08 and later (up to draft-10):
//
//	RateLimit-Policy: "burst";q=10;w=1, "steady";q=600;w=60
//	RateLimit: "burst";r=3;t=1
//
// RateLimit-Policy is a Structured Field List (RFC 9651) with one item per
// policy: the policy name as a String, q its quota (Limit) and w its window
// in whole seconds. RateLimit reports, for the binding policy (or for every
// policy with AllPolicies), r the remaining quota and t the seconds until
// more quota is available. The other modes:
//
//   - [Draft7]: the combined field of draft-07, a Dictionary, with the
//     policies as quota;w=window items:
//     RateLimit: limit=10, remaining=3, reset=1 and
//     RateLimit-Policy: 10;w=1, 600;w=60.
//   - [Draft6]: the separate fields of drafts 00 to 06, RateLimit-Limit,
//     RateLimit-Remaining and RateLimit-Reset (delta seconds), with the
//     same RateLimit-Policy as Draft7.
//   - [Legacy]: X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset
//     (delta seconds, or Unix epoch seconds as GitHub does with LegacyEpoch).
//   - [None]: no rate-limit fields.
//
// limit, remaining and reset (and their separate fields), like draft-8's
// RateLimit without AllPolicies, describe the binding policy only
// (core.Decision.Index): the one closest to denying. Of policies that
// allow with equally little quota left, that is the one that waits longest
// for more, so a client that comes back after t is not refused by another.
//
// The middleware also writes Retry-After on every enforced denial, in every
// mode.
//
// # Numbers
//
// Every value is a non-negative integer. Durations are rounded up to whole
// seconds, so a client that waits as long as it is told is never early
// (but for the millisecond an allowed t forgives, below):
//
//   - w, the window, is at least 1: a 500ms window is advertised as w=1 and a
//     1500ms window as w=2.
//   - t (reset in the older modes) is the time until more quota: for a
//     policy that denies, its RetryAfter (the shortest wait after which the
//     request is admitted); otherwise its ResetAfter (until the quota is
//     whole again, which for the sliding-window algorithm can be up to two
//     windows), rounded up. On an allowed response the stores' millisecond
//     is forgiven first (a sliding log that has just admitted a request
//     reports its window plus up to 1 ms, which would read t=2 for a 1 s
//     window): t is ResetAfter less 1 ms, rounded up, and so may be up to
//     a millisecond early. A client that waits t, plus a millisecond,
//     before spending r again is never refused for lack of quota. A
//     denial's t is never early.
//   - A policy that denies reports r=0 (also in observe-only mode, where the
//     request goes through but the fields say what enforcement would do).
//   - Retry-After is the binding policy's RetryAfter rounded up, at least 1,
//     and so never earlier than that policy's t.
//
// Numbers larger than a Structured Field Integer can hold (15 digits) are
// capped at 999999999999999.
//
// # Names
//
// A policy name is written as an sf-string, which may hold only printable
// ASCII (0x20 to 0x7E); '"' and '\' are escaped. Any other character
// (control characters, non-ASCII) is replaced by '_' so the field stays
// valid. The adapters' New functions reject two policy names of the
// limiter they are given written alike (such as "tier-é" and "tier-ü",
// both "tier-_"); the limiters a WithLimiterFunc returns, and policies set
// later with SetPolicies, are not checked, so keep names to printable
// ASCII.
//
// # Partition key
//
// The draft's pk parameter lets a client tell quotas apart. It is off by
// default; when enabled ([Writer.PartitionKey], in the middleware) it is
// a keyed hash of the rate-limit key, never the key itself: a raw IP address
// or API key is never sent back. pk is the first 12 bytes of
// HMAC-SHA256(secret, key) as an sf-binary. Clients can compare it between
// responses (same pk, same quota) but cannot compute it; a plain hash would
// let anyone recover an IPv4 key by trying all 2^32 addresses.
package headers
