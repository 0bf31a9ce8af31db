package main

import (
	"slices"
	"strings"
)

// descriptions say what each benchmark measures, by the start of its
// group's name (the longest match wins); the rest of the name (a number of
// goroutines, a deployment) is shown in the heading.
var descriptions = map[string]string{
	"MemoryHotKey": "In-memory limiters, one key, one goroutine: every call evaluates and charges " +
		"(the limit is never reached).",
	"MemoryHotKeyParallel": "In-memory limiters, one key (a global limit, or one large tenant) under the number of " +
		"goroutines in the heading. ns/op is wall time per decision of the whole process.",
	"MemoryKeys1M":    "In-memory limiters, a million distinct keys touched in turn. B/key is the heap each tracked key holds.",
	"MemoryLogStamps": "The in-memory sliding log's memory: B/stamp per stored timestamp, B/key-fixed per key beyond it.",
	"MiddlewareOverhead": "One request through each net/http handler in process (no network), memory store: " +
		"the difference to the bare handler is the middleware's cost per request.",
	"RedisSerial": "Redis-backed limiters, one goroutine, calls spread over 1,024 keys: the latency of one decision " +
		"(one round trip on loopback).",
	"RedisParallel": "Redis-backed limiters, 64 goroutines on one client, calls spread over 1,024 keys: " +
		"the throughput one application process gets.",
	"SlidingLogCost": "ratewindow's sliding log of limit L = 1,000,000: one request per window on one key, of cost 1 " +
		"and of cost L (each request prunes the previous request's units and charges its own).",
	"RedisMemoryPerKey": "What one tracked key costs in Redis: 100,000 keys get one request each on a private, empty " +
		"redis-server; info-bytes/key is the growth of INFO used_memory per key, usage-bytes/key the mean MEMORY USAGE.",
	"RedisLogMemoryPerUnit": "What each unit held in a Redis sliding log costs: 10,000 keys charged 100 units each.",
}

// describe returns the description of the group called name, or "".
func describe(name string) string {
	best := ""
	for prefix := range descriptions {
		if (name == prefix || strings.HasPrefix(name, prefix+"/")) && len(prefix) > len(best) {
			best = prefix
		}
	}
	return descriptions[best]
}

// groupOrder is the order of the tables in the report, by the top-level
// benchmark name; others follow in the order they ran.
var groupOrder = []string{
	"MemoryHotKey", "MemoryHotKeyParallel", "MemoryKeys1M", "MemoryLogStamps", "SlidingLogCost",
	"MiddlewareOverhead", "RedisSerial", "RedisParallel", "RedisMemoryPerKey", "RedisLogMemoryPerUnit",
}

// orderGroups sorts gs by groupOrder, keeping the order of groups of one
// benchmark.
func orderGroups(gs []group) {
	rank := func(g group) int {
		top, _, _ := strings.Cut(g.Name, "/")
		if i := slices.Index(groupOrder, top); i >= 0 {
			return i
		}
		return len(groupOrder)
	}
	slices.SortStableFunc(gs, func(a, b group) int { return rank(a) - rank(b) })
}
