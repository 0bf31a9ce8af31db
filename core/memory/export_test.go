package memory

import (
	"hash/maphash"
	"time"

	"github.com/ratewindow/ratewindow/core"
)

// LogCapForTest returns the buffer capacity of key's sliding log under p.
func LogCapForTest(cs core.Store, key string, p core.Policy) int {
	s := cs.(*store)
	h := nonZero(maphash.String(s.seed, key))
	sh := &s.shards[h&s.mask]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	t := sh.find(p.Fingerprint())
	if t == nil {
		return 0
	}
	if l, _ := t.logs.get(h); l != nil {
		return l.Cap()
	}
	return 0
}

// EntriesForTest counts the entries every table of s holds, slot by slot,
// and the slots the tables have room for.
func EntriesForTest(cs core.Store) (entries, slots int) {
	s := cs.(*store)
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		for _, t := range sh.tables {
			entries += t.fixed.n + t.sliding.n + t.logs.n
			slots += len(t.fixed.slots) + len(t.sliding.slots) + len(t.logs.slots)
		}
		sh.mu.Unlock()
	}
	return entries, slots
}

// shardOf returns key's hash and shard in s.
func shardOf(s *store, key string) (uint64, *shard) {
	h := s.hash(key)
	return h, &s.shards[h&s.mask]
}

// MakeHotForTest gives key's existing fixed-window or sliding-counter
// entry under p a hot cell, as contention would, and reports whether it
// could.
func MakeHotForTest(cs core.Store, key string, p core.Policy) bool {
	s := cs.(*store)
	h, sh := shardOf(s, key)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	t := sh.find(p.Fingerprint())
	if t == nil {
		return false
	}
	sh.retire()
	switch t.alg {
	case core.FixedWindow:
		if i := t.fixed.find(h); i >= 0 {
			c := t.fixed.slots[i].s
			sh.install(h, t, p.Limit, c.start, 0, int64(c.count))
		}
	case core.SlidingWindow:
		if i := t.sliding.find(h); i >= 0 {
			c := t.sliding.slots[i].s
			sh.install(h, t, p.Limit, c.start, int64(c.prev), int64(c.curr))
		}
	}
	return sh.hot.Load() != nil
}

// MakeHotLogForTest gives key's existing sliding log under p a hot cell
// for Takes at now, as contention would, and reports whether it could.
func MakeHotLogForTest(cs core.Store, key string, p core.Policy, now time.Time) bool {
	s := cs.(*store)
	h, sh := shardOf(s, key)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	t := sh.find(p.Fingerprint())
	if t == nil || t.alg != core.SlidingLog {
		return false
	}
	sh.retire()
	if l, _ := t.logs.get(h); l != nil {
		down, up := instants(now)
		sh.installLog(h, t, l, p.Limit, down, up)
	}
	return sh.hot.Load() != nil
}

// HotLogUnitsForTest returns the units admitted on key's sliding-log hot
// cell, and false when key has no such cell.
func HotLogUnitsForTest(cs core.Store, key string) (int64, bool) {
	s := cs.(*store)
	h, sh := shardOf(s, key)
	c := sh.hot.Load()
	if c == nil || c.h != h || c.log == nil {
		return 0, false
	}
	w := c.word.Load()
	return int64(w), w != retired
}

// IsHotForTest reports whether key has its shard's hot cell.
func IsHotForTest(cs core.Store, key string) bool {
	s := cs.(*store)
	h, sh := shardOf(s, key)
	c := sh.hot.Load()
	return c != nil && c.h == h
}

// LockShardForTest holds the mutex of key's shard until the returned func
// is called.
func LockShardForTest(cs core.Store, key string) (unlock func()) {
	s := cs.(*store)
	_, sh := shardOf(s, key)
	sh.mu.Lock()
	return sh.mu.Unlock
}

// Len returns the number of (key, policy) entries s tracks, expired ones
// not yet reclaimed included.
func Len(cs core.Store) int { return cs.(*store).entries() }

// WithShards is withShards, for the external tests.
var WithShards = withShards

// WeightsForTest returns the weight and entry count s keeps for its
// shards, and the same recounted from the tables' contents.
func WeightsForTest(cs core.Store) (used, keys, wantUsed, wantKeys int) {
	s := cs.(*store)
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		used += sh.used
		keys += sh.keys
		for _, t := range sh.tables {
			wantKeys += t.fixed.n + t.sliding.n + t.logs.n
			wantUsed += t.fixed.n + t.sliding.n
			for _, sl := range t.logs.slots {
				if sl.h != 0 {
					wantUsed += logWeight(sl.s)
				}
			}
		}
		sh.mu.Unlock()
	}
	return used, keys, wantUsed, wantKeys
}

// TablesForTest returns the largest number of policy tables one shard of
// s holds.
func TablesForTest(cs core.Store) int {
	s := cs.(*store)
	n := 0
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		n = max(n, len(sh.tables))
		sh.mu.Unlock()
	}
	return n
}
