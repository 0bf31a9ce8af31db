// Package redisstore keeps a Limiter's counters in Redis, so every process
// of an application shares one quota per key.
//
// Switching a limiter from memory to Redis is one line:
//
//	store, err := redisstore.New(rdb) // rdb: *redis.Client, *redis.ClusterClient, ...
//	lim, err := core.NewLimiter(store, policies)
//
// # One round trip per decision
//
// Take and Peek run one Lua script (EVALSHA; EVAL once after a SCRIPT FLUSH
// or restart) that evaluates every policy of the call and charges the cost
// to all of them only if all allow. The script is atomic on the server, so
// no other call for the key interleaves, across any number of clients. Its
// arithmetic mirrors the Go algorithms in package core line for line
// (fixedwindow.lua, slidingwindow.lua, slidinglog.lua; take.lua is the
// driver), on integer milliseconds that stay exact in Lua's doubles, and the
// core/storetest suite checks that it decides exactly as the memory store
// does.
//
// # Keys
//
// Each (key, policy) pair has one Redis key:
//
//	<prefix>:{<tag>}:<algorithm letter><window ms>:<policy name>
//	ratewindow:{203.0.113.9}:s60000:100-per-1m
//
// The tag is the user key when it is at most 64 bytes, has no brace and does
// not start with '#'; otherwise it is '#' and 32 hex digits of its SHA-256.
// All keys of one user key carry the same hash tag, so they live in one
// cluster slot and the script never fails with CROSSSLOT. The policy part
// holds Name, Window and Algorithm but not Limit, so changing a limit keeps
// the counts, as in the memory store.
//
// # Data layout
//
//   - Fixed window: a string "start count" (window start in Unix ms, units
//     charged). One GET, one SET with PX: the smallest thing that can hold
//     the clamp-to-window-start state the Go code keeps.
//   - Sliding window counter: a string "start prev curr". Keeping both
//     buckets in one short string (stored inline by Redis) costs one key
//     instead of two and one read and one write per call.
//   - Sliding log: a sorted set of allowed units scored by their time in
//     ms, with members "t:i" (the i-th unit charged in millisecond t) so
//     two requests in one millisecond are never collapsed into one member.
//     It is pruned (ZREMRANGEBYSCORE) on every call, so it holds at most
//     Limit members; RetryAfter reads the score of the (count+cost−Limit)-th
//     oldest.
//
// Every write sets a TTL of what the state needs plus one second: the window
// for the fixed window and the log, two windows for the sliding counter. Idle
// keys vanish on their own.
//
// # Time
//
// By default the script uses the now passed to Take and Peek (the Limiter's
// Clock). WithServerTime makes it read Redis TIME instead, so application
// nodes with skewed clocks agree. Either way time never runs backward for a
// key: the state's window start, or the log's newest entry, is the floor.
//
// # Context and errors
//
// Every call honours ctx. When the client has ContextTimeoutEnabled, go-redis
// bounds its own waits; otherwise the store stops waiting when ctx is done
// and returns ctx's error, so a slow or unreachable Redis never holds a
// request past its deadline. Errors are returned, never hidden: whether to
// fail open or closed is the middleware's choice.
package redisstore
