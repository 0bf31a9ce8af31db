// Package memory is ratewindow's in-memory Store: the default, needing no
// server, for a single process.
//
// # Layout
//
// Keys are hashed once per call (hash/maphash, random seed) and the hash
// picks one of a power-of-two number of shards, each with its own mutex, so
// cores rarely contend. Within a shard every policy (identified by its Name,
// Window and Algorithm) has its own table from key hash to state:
//
//   - fixed window and sliding window counter: a 24-byte slot (key hash,
//     window start, 32-bit counts) in an open-addressing table kept 58% to
//     87% full: about 30 bytes per tracked key measured over 1,000,000
//     keys (BenchmarkMillionKeys), with no pointer per key;
//   - sliding log: a pointer to a ring buffer of 8-byte timestamps, grown
//     only as far as it is used and never past the limit.
//
// Keys themselves are not stored, only their 64-bit hash: two distinct keys
// share counters only if their hashes collide (about one chance in 2^64 per
// pair, with a seed an attacker cannot know).
//
// All policies of one key live in the same shard, so one lock makes the
// all-or-nothing charge atomic. An existing key is served without
// allocating.
//
// # Reclaiming idle keys
//
// There is no background goroutine and no sweep of a whole map. Every time
// a key is inserted, a few entries of the same table, taken from a random
// point, are examined and deleted if expired; so dead entries stay a bounded
// fraction of each table. With WithMaxKeys, a shard that is full evicts an
// entry (an expired one if it finds one among a small sample, else any)
// before inserting: memory stays bounded under a flood of distinct keys, at
// the price of forgetting some key's counts.
package memory
