package memory

import (
	"hash/maphash"

	"github.com/ratewindow/ratewindow/core"
)

// LogCapForTest returns the buffer capacity of key's sliding log under p.
func LogCapForTest(s *Store, key string, p core.Policy) int {
	h := fix(maphash.String(s.seed, key))
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
func EntriesForTest(s *Store) (entries, slots int) {
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
