// Package memory is ratewindow's in-memory Store: the default, needing no
// server, for a single process.
//
// # Layout
//
// Keys are hashed once per call (hash/maphash, random seed) and the hash
// picks one of the shards (16 per CPU, rounded up to a power of two), each
// with its own mutex, so cores rarely contend. Within a shard every policy (identified by its Name,
// Window and Algorithm) has its own table from key hash to state:
//
//   - fixed window and sliding window counter: a 24-byte slot (key hash,
//     window start, 32-bit counts) in an open-addressing table kept 58% to
//     87% full, so about 28 to 41 bytes per tracked key, with no pointer
//     per key;
//   - sliding log: a 16-byte slot (key hash, pointer) to a ring buffer of
//     16-byte records, one per request admitted within a window of the
//     key's last admission (see docs/algorithms.md): at most
//     min(Limit, Window/1ms + 1) records per key, whatever the requests'
//     costs; the buffer doubles as it fills and halves when a quarter
//     full. A key's log costs about 64 bytes plus 16 per record held.
//
// Keys themselves are not stored, only their 64-bit hash: two distinct keys
// share counters only if their hashes collide (about one chance in 2^64 per
// pair, with a seed an attacker cannot know).
//
// All policies of one key live in the same shard, so one lock makes the
// all-or-nothing charge atomic. An existing key is served without
// allocating.
//
// # One hot key
//
// A key that many goroutines use at once (a global limit, one large
// tenant) meets them all on its shard's mutex. For a limiter with one
// policy, a decision that finds that mutex held gives the key a hot cell,
// one per shard, which later decisions update with a compare-and-swap
// instead of taking the mutex, with the same decisions as under the mutex:
//
//   - fixed window and sliding window counter (of a limit below 2^31): the
//     key's window and counts packed in one word;
//   - sliding log: the units admitted in the current millisecond, against
//     the count the older records leave. Only admissions at that instant
//     are decided on the cell; a denial (whose wait is read off the log)
//     and the next millisecond go through the mutex, which folds the
//     cell's units into the log, and a key still contended gets a new cell
//     for its new millisecond: one small allocation per millisecond or a
//     few more (about 2,800 a second from 64 goroutines on 2 cores).
//
// The cell goes back to the table when the key goes quiet, when
// its window ends unused, or when a call the cell does not serve (Peek,
// Reset, a limiter with several policies) touches the key; it costs one
// small allocation when made.
//
// # Reclaiming idle keys
//
// There is no background goroutine and no sweep of a whole map. Every time
// a key is inserted, a few entries of its policy's table, and every 32
// calls on a shard, a few entries of the shard's tables in turn, taken from
// a random point, are examined and deleted if expired (a sweep goes on
// while all it examines are dead, so the remains of a flood go quickly),
// and a table shrinks when a quarter full: dead entries stay a bounded
// fraction of each table, and memory taken by a flood of keys is given
// back once it is over, also for a policy that SetPolicies replaced (its
// table is dropped once empty). An entry is expired once the clock of a call
// has passed the end of its window (for a sliding counter, of the window
// after it; for a sliding log, a window after its newest record). One that
// lies ahead of the clock (the clock stepped back) is kept: its key's next
// call moves its counts to the present, so the requests admitted just
// before the step still count.
//
// # Clock steps back past a swept entry
//
// Which calls sweep which entries depends on the keys that share a shard
// (the hash seed is random), on each shard's call count and on where a
// sweep starts. Once a call has passed the end of a key's entry, the entry
// may be swept before the key's next call or not; if that call comes after
// the clock stepped back to before that end, it finds the key's counts
// either kept (the decision of the key's own calls alone, as the Redis
// store decides until the key's TTL runs out) or forgotten (the key starts
// afresh). Two stores given the same sequence of calls can decide that
// call, and the key's calls after it, differently. What holds whatever the
// sweeps:
//
//   - an entry is never swept while it counts at the latest instant a call
//     on its shard has passed, so a key gets the decisions of its own calls
//     alone, the same on every store, unless one of its calls comes, after
//     a step back, before the end of an entry that an earlier call had
//     already passed (WithMaxKeys aside, whose evictions forget live
//     counts too);
//   - a forgotten key starts empty, so no key is locked out any longer
//     than its own calls would lock it out;
//   - the counts forgotten had stopped counting at the instant of the
//     sweeping call: if that clock was not ahead of real time, no window
//     of real time holds more than the limit. (As the stepped clock reads
//     it, a window can then hold more, as it can when a key's own call
//     passes its window before the clock steps back.)
//
// With WithMaxKeys, a shard over its share of the cap (the cap divided by
// the shard count) evicts entries of other keys (expired ones if a small
// sample finds them, else any) until it is back under: memory stays
// bounded under a flood of distinct keys, with any mix of policies, at the
// price of forgetting some keys' counts. A sliding log is weighed by its
// buffer, so the cap bounds bytes. The entry of the key being served is
// never evicted, nor that of a shard's hot key.
//
// A key heavier than its shard's share would evict every other key of the
// shard and then be evicted itself by the next new key, its count
// forgotten: its limit would not hold. So the store implements
// core.PolicyChecker, and NewLimiter and SetPolicies refuse policies under
// which one key's entries (a sliding log of up to min(Limit, Window/1ms +
// 1) records weighs 4 units plus one per two of them, a counter 1) could
// outweigh a share; the error names the cap that would hold them. Without
// WithMaxKeys nothing is refused.
package memory
