// Package keyfuncs turns an HTTP request into a rate-limit key.
//
// A key decides who shares a quota: every request that maps to the same key
// is counted together. A [KeyFunc] reads a framework-neutral [Request] view
// (each adapter fills one in from its native request) and returns the key,
// [ErrSkip] when the request should not be limited at all, or [ErrNoKey]
// when no key could be derived.
//
// # Strategies
//
//   - [RemoteIP]: the TCP peer address. Safe by default: no header is read.
//     Behind a reverse proxy that address is the proxy's, shared by every
//     client: use [NewClientIP].
//   - [NewClientIP]: the client address behind trusted reverse proxies,
//     read from X-Forwarded-For, Forwarded (RFC 7239), X-Real-IP or
//     CF-Connecting-IP, but only when the peer itself is trusted.
//   - [Header] and [BearerToken]: an API key or token, with a fallback
//     strategy when the header is absent.
//   - [FromContext]: a user or organisation id set by authentication
//     middleware.
//   - [Route]: method and route pattern, so /users/1 and /users/2 share a
//     key.
//   - [Compose] and [Prefix]: build "org:cmp:ctx:main.orgKey:123|route:GET
//     /v1/search" from the parts, each part in its own namespace.
//
// # Client IP done right
//
// X-Forwarded-For is a list anyone can write to: a client sends
// "X-Forwarded-For: 1.2.3.4" and every proxy on the way appends the address
// it saw. Only the entries appended by proxies you run are trustworthy, and
// they are on the right. So [NewClientIP] walks the list from the right,
// skips addresses in trusted ranges, and returns the first one that is not
// trusted: the address your outermost proxy saw. Entries to the left of it
// are whatever the client chose to send and are never read. Repeated header
// lines are joined in order, as HTTP says they must be. An entry that does
// not parse as an IP address ("unknown", an obfuscated identifier, junk)
// stops the walk and is never a key: the address of the proxy that reported
// it is used instead. A Forwarded address whose port alone is obfuscated
// (for="192.0.2.43:_hidden") is that address. Only the 32 rightmost
// entries are looked at, so a huge header costs no more than a short one. A
// trusted range of every address ("0.0.0.0/0"), or ranges that together
// hold every IPv4 or every IPv6 address, are refused at construction: every
// entry would be skipped, and the leftmost, the client's own, would be its
// key.
//
// IPv6 clients usually own a whole /64 (often more), so keys group IPv6
// addresses by prefix (default /64): one host cannot escape its limit by
// rotating through its subnet. A client with a bigger block (a /48, which
// tunnel brokers hand out for free) still has a key per /64 it uses: bound
// it with a second limiter keyed by NewClientIP with IPv6Prefix 48 (see
// the nethttp example of that name). IPv4-mapped IPv6 addresses
// (::ffff:1.2.3.4) are keyed as the IPv4 address.
//
// # Keys never collide
//
// Every built-in strategy writes its keys in a namespace of its own:
// "ip:192.0.2.1", "hdr:x-api-key:abc123", "ctx:main.userKey:42",
// "route:GET /users/{id}", "const:global", and "h:" and 32 hex digits for a
// hashed key. A client that sends "X-API-Key: 192.0.2.1"
// gets "hdr:x-api-key:192.0.2.1", never the quota of the anonymous client at
// 192.0.2.1. [Compose] escapes the separator inside its parts and [Prefix]
// escapes ':' inside the prefix, so parts that contain the separator cannot
// pose as other parts. A key that merely looks hashed ("h:...") is hashed
// again, so sending the hashed form of someone's long key does not reach
// their quota. Keys from your own KeyFunc are yours to keep apart:
// wrap them in [Prefix] to give them a namespace.
//
// # Keys are bounded
//
// A key is stored by every Store, so its size is memory. Every built-in
// strategy caps keys at 128 bytes, and the middleware caps the keys of your
// own KeyFunc the same way: a longer key is replaced by "h:" and 32 hex
// digits of its SHA-256. An attacker's 8 KB header therefore costs
// the same memory as a short one. It is hashed where it lies, never copied
// whole (a Host field in upper case is lowered once): a megabyte header
// costs the key funcs a few hundred bytes.
package keyfuncs
