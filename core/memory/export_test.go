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
	if t == nil || t.logs[h] == nil {
		return 0
	}
	return t.logs[h].Cap()
}
