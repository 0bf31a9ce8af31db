// Package redisstore keeps a Limiter's counters in Redis, so every process
// of an application shares one quota per key.
//
// Switching a limiter from memory to Redis changes only its store:
//
//	rdb := redis.NewUniversalClient(redisstore.ClientOptions("10.0.0.5:6379")) // several addresses: a Cluster
//	store, err := redisstore.New(rdb) // or any *redis.Client, *redis.ClusterClient, ...
//	lim, err := core.NewLimiter(store, policies)
//
// ClientOptions sets timeouts that suit a rate limiter (a Redis that is down
// costs a request milliseconds), and Check, at startup, tells a misconfigured
// client from a Redis that is merely down: see Production below.
//
// # One script per decision
//
// Take and Peek run one Lua script (EVALSHA; EVAL once after a SCRIPT FLUSH
// or restart, unless the client loads the scripts as it connects, see
// ClientOptions) that evaluates every policy of the call and charges the cost
// to all of them only if all allow. The script is atomic on the server, so
// no other call for the key interleaves, across any number of clients. Its
// arithmetic mirrors the Go algorithms in package core (fixedwindow.lua,
// slidingwindow.lua, slidinglog.lua), on integer milliseconds that stay
// exact in Lua's doubles, and the core/storetest suite checks that it
// decides exactly as the memory store does on the same instants (with
// WithClientTime; by default the instant is Redis's, see Time).
//
// The scripts are generated from the algorithm files with go generate and
// checked in as they run, in scripts/ (docs/redis-scripts.md in the
// repository says how they are assembled). The numbers go in as one
// MessagePack argument and come back as one MessagePack string, four
// integers per policy.
//
// # Batching
//
// Most of what Redis spends on a small script is the cost of the call
// itself, so a Store sends the concurrent calls of its process together.
// A call that finds fewer than two round trips of the store in flight is
// sent at once, alone: a lone caller waits for nothing but its own round
// trip. Calls that arrive while two are in flight queue, and go together
// in the next round trip, as soon as one of those ends; there is no timer,
// so a batch forms only while Redis is already busy, and grows with the
// load (up to 64 calls).
//
// On a standalone Redis (a *redis.Client, Sentinel included) a batch is
// one script call that decides its requests one after another, each as if
// it had been sent alone: the decisions are exactly those of the same
// calls one at a time, all or nothing per call. An endpoint with one
// address that enforces Cluster's one-slot rule for scripts (a proxy in
// front of every slot) refuses such a call with CROSSSLOT before it runs;
// the store then sends that batch, and every later one, as a pipeline of
// the calls' own scripts, with the same decisions. On a Cluster, where one
// script may only touch one slot, each master has a queue and two round
// trips of its own, and a batch is a pipeline of the calls' own scripts to
// that master: a master that does not answer holds up only the calls for
// its own keys. Other clients (a Ring) send every call alone. Either way
// every call has its own result: a key that fails (a value of another type
// under its Redis key, say) fails its own call and no other, and an answer worth retrying during a failover
// or a reshard is retried for the calls that met it, never charging a
// call twice.
//
// # Keys
//
// Each (key, policy) pair has one Redis key:
//
//	<prefix>:{<tag>}:<algorithm><window>:<name code>
//	rw:{ip:203.0.113.9}:s1m:LLtnfk
//
// The parts are:
//
//   - prefix: "rw" unless WithPrefix sets another.
//   - tag: the user key when it is at most 64 bytes, has no brace and
//     does not start with '#'; otherwise '#' and 32 hex digits of its
//     SHA-256. All keys of one user key carry the same hash tag, so they
//     live in one cluster slot and the script never fails with CROSSSLOT.
//   - algorithm: f (fixed window), s (sliding window counter) or l
//     (sliding log).
//   - window: in the largest unit that divides it exactly, so each window
//     has one spelling: 1h, 15m, 90s, 1500ms.
//   - name code: the policy's Name as six base-62 digits of its 64-bit
//     FNV-1a hash (mixed with MurmurHash3's finaliser), so the key's length
//     does not depend on the name; "LLtnfk" is the code of "1m".
//
// The policy part holds Algorithm, Window and Name but not Limit, so
// changing a limit keeps the counts, as in the memory store. Policies that
// differ in algorithm or window never share a key; two names with the same
// algorithm and window would share one only if their codes collided, about
// one chance in 2^35 for a pair of names.
//
// Redis holds every key name in full, once per tracked key, so the names
// are short: with the default prefix, a user key of up to 14 bytes
// ("ip:203.0.113.9") and a window spelled in two characters (1s, 5m, 1h), a
// key name is at most 30 bytes, which Redis allocates in 32. Each further
// byte of prefix, user key or window can move it to the next 16-byte class.
//
// Releases before this layout wrote "ratewindow:{<tag>}:<algorithm><window
// in ms>:<policy name>". After an upgrade every key starts with fresh
// counts; the old keys are no longer read and expire within their TTL.
//
// # Data layout
//
// Memory per tracked key is mostly Redis's own per-key overhead, so each
// state is one key with the smallest value that holds it. The fixed window
// and the sliding counter write one of two forms:
//
//   - Compact: the value is a plain integer and the window is the key's
//     expiry, an absolute instant (SET ... PXAT; read back with
//     PEXPIRETIME): the window's end plus one second for the fixed window,
//     whose value is the count; the current bucket's end plus a window
//     plus one second for the sliding counter, whose value is
//     prev × 2^26 + curr. An integer below 10,000 (a new key's) is an
//     object Redis shares: the value costs no memory. A charge in the
//     window the key holds is one INCRBY, which keeps the expiry.
//   - Full: the window's index (start = index × window) and the counts,
//     packed with the script's MessagePack library (cmsgpack), with a TTL
//     of what the state needs plus one second from the write (SET ... PX).
//
// The scripts write the compact form when the window is a second or more,
// the time they decide on is at most half a second behind Redis's clock
// (always so by default; with WithClientTime, the caller's now is checked
// against TIME, read once per call only when a write sets a new expiry),
// and the sliding counter's counts are below 2^26; the full form
// otherwise. Either is read by every caller, so a caller on any clock
// keeps every count. A compact key's expiry names its window even when
// moved by up to a quarter window, as MIGRATE and RESTORE may move it
// (they carry a TTL, not an instant).
// docs/redis.md in the repository has the clock-skew bound.
//
// The sliding log is a sorted set with one member per admitted request
// (requests in one millisecond share one), scored by its instant in ms
// rounded up; the member is pack(sum, w), w the request's units and sum
// the running total up to it. Its size and the script's work do not grow
// with a request's cost: a key holds at most one member per admitted
// request still in the window (so at most Limit, and at most one per
// millisecond of the window). Members that left the window are skipped
// by score on every call and pruned (ZREMRANGEBYSCORE) on every charge; a
// denial's RetryAfter is a binary search by rank on the running sums. Its TTL is the newest member's
// instant plus the window plus one second, from the write.
//
// To read a state by hand: GET and PEXPIRETIME for a compact key, and for
// a full one
//
//	EVAL "return {cmsgpack.unpack(redis.call('GET', KEYS[1]))}" 1 <key>
//
// Idle keys vanish on their own. Measured on Redis 7.0 (bench module,
// 100,000 keys of 12 bytes, the default prefix and policy name, e.g.
// "rw:{user:0000042}:s1h:ON3G22"), the growth of INFO used_memory, which
// counts the key's entry, its expiry entry, its name, its value and the
// key space's hash tables, is about 117 bytes per key for the fixed window
// and the sliding counter (a bare INCR counter: 111) and 165 for a sliding
// log holding one request. docs/redis.md in the repository says where the
// bytes go.
//
// # Time
//
// By default the scripts decide on Redis's clock: every call reads Redis
// TIME when it runs, and the now passed to Take and Peek is ignored. All
// processes sharing the Redis then see the same windows whatever their own
// clocks, so the limit holds between them, a Peek from a process whose
// clock is off changes nothing, and a sliding log is exact in real time
// across them. The instant is the one at which the script runs, not the
// one at which the caller read its clock, so a call that waited (for a
// batch, for a connection) is decided at the time it is decided. RetryAfter
// and ResetAfter are measured on Redis's clock. A Limiter on a fake clock
// (core.WithClock) still decides on real time over such a store: moving its
// clock on frees nothing.
//
// WithClientTime makes the scripts decide on the now passed in (the
// Limiter's Clock) instead: for tests on a fake clock, and for decisions
// identical to the memory store's on the same times. A now behind a key's
// state by up to a window is evaluated against the state, with waits
// measured from now; a state more than a window ahead (the clock stepped
// back) is moved to now with its counts kept, so the key recovers within
// about a window. That move cannot tell a clock that stepped back from
// another process whose clock is behind: processes whose clocks differ by
// more than a window move a shared key back and forth, and the limit does
// not hold between them (each call of the one ahead may start a fresh
// window); within a window of each other they keep one limit, but a
// sliding log is exact only to within their skew. Use WithClientTime on a
// fleet only where the clocks agree to well within a window.
//
// Redis's own clock may step too (set by hand, a host restored, a failover
// to a replica whose clock differs). To the scripts that is a clock that
// stepped, as a caller's would be with WithClientTime: a step forward ends
// windows early, and a step back by more than a window moves each key's
// state to the new time with its counts kept, so no key is locked out for
// more than about a window. Keep Redis's hosts on NTP. In either mode the
// scripts take now in microseconds: a sliding log records a request at its
// instant rounded up to the millisecond, exact in real time.
//
// # Context and errors
//
// Every call honours ctx's deadline. A context already done fails at once,
// without a round trip. When the client has ContextTimeoutEnabled, go-redis
// bounds its own waits; otherwise the store waits for the reply on another
// goroutine and stops waiting at the deadline, returning ctx's error, so a
// slow or unreachable Redis never holds a request past its deadline (a
// context with no deadline waits at most the client's own timeouts). A call
// sent alone on the caller's goroutine (those two cases) does not return
// at ctx's cancellation, which go-redis does not honour: it waits for its
// reply and is decided, so a request that the middleware asks again,
// detached, once its client has hung up or half-closed, is not charged
// twice; so does a call sent in a batch, or alone on another goroutine,
// until its deadline at most. With no deadline, a call so cancelled in a
// batch waits, as one sent alone does, only for the round trip under way
// (its batch's, or its own retry's), which the client's own timeouts
// bound; never for the attempts of the other calls of its batch. A call
// still queued for a batch returns at cancellation, uncharged.
// Whatever its deadline, a call queued for a batch fails, uncharged, once
// a batch ahead of it has run for the client's ReadTimeout without an
// answer from Redis: a silent Redis costs a call about two read timeouts,
// however many calls wait.
//
// A call that ends at its deadline or cancellation before it was sent
// (still queued for a batch) was not charged, and never will be. A call
// that ends so after it was sent, alone or in a batch, may have been
// charged: Redis may run the script after the caller stopped waiting. So
// may a call whose reply is lost, or comes but cannot be read (its error
// says so). A batch's
// round trip runs until the latest deadline of its calls; one caller
// leaving cancels nothing for the others, and no call is ever sent twice
// unless Redis answered that it did not run it; then it is sent again only
// while its caller waits, in a batch too, so a caller that left during
// the retries is not charged, and each call of a batch is retried within
// its own deadline (or, with none, the retry budget), as it would be
// alone, at the same time as the others: a Redis that stops answering
// during the retries costs each call its own attempt, which the client's
// timeouts bound, not an attempt for every call retried before it.
//
// Errors are returned, never hidden: whether to fail open or closed is the
// middleware's choice. A panic of the client (a hook added to it) on a
// goroutine of the store, a batch's or one waiting out a deadline, does
// not end the process: the calls it held fail with an error wrapping
// ErrClientPanicked, and may have been charged.
//
// # Production
//
// Create the client with ClientOptions, so a Redis that is down costs a
// request milliseconds (go-redis's defaults spend seconds dialling and
// retrying), and run Check at startup: an error wrapping ErrMisconfigured
// (a standalone client on a node of a Cluster of several masters or with
// replicas, a replica, comma-joined addresses, ClientOptions given no address, credentials or an ACL that
// Redis refuses) means the service should not start; any other means
// Redis is not reachable yet. A call that meets ASK, MOVED, TRYAGAIN or CLUSTERDOWN
// while a cluster reshards or fails over, READONLY or MASTERDOWN from a
// demoted master, or LOADING from a Redis loading its dataset, is retried
// within its deadline (500 ms with none); a call whose time runs out
// first fails uncharged with an error that matches its context's error
// (os.ErrDeadlineExceeded for the 500 ms) and keeps Redis's answer. A
// MOVED or ASK to a non-cluster client is ErrMisconfigured, at any attempt. The scripts start with
// the shebang #!lua (Redis 7.0 or later), so a Redis over its maxmemory
// refuses them before any write (ErrOutOfMemory). Behind core/resilient,
// a Cluster master that is lost opens the circuit breaker of its own keys
// only: Domain names each key's master, and resilient keeps a breaker per
// master. The keys of a slot that no master serves have a domain of their
// own, "no master", so their failures open no healthy master's breaker
// (see Store.Domain). docs/redis.md in the repository has the measured behaviour
// during outages, failover and resharding.
package redisstore
