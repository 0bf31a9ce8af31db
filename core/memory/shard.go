package memory

import (
	"sync"
	"sync/atomic"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/internal/algo"
)

const (
	// sweepSample is how many entries an insert examines for expiry.
	sweepSample = 4
	// evictSample is how many entries a full shard examines for a victim.
	evictSample = 8
	// sweepEvery is how many calls on a shard pass between small
	// sweeps on behalf of calls that insert nothing, so that a table
	// emptied by time gives its memory back even when no new key comes.
	sweepEvery = 32
	// touchSample is how many entries such a sweep examines.
	touchSample = 2
)

// shard is one lock and the per-policy tables of the keys that hash to it.
type shard struct {
	// hot is read by every decision on the shard without the mutex (see
	// hotCell); it has a cache line of its own, apart from the mutex that
	// other keys' decisions write.
	hot atomic.Pointer[hotCell]
	_   [56]byte

	mu      sync.Mutex
	hotSeen uint64 // hot's word at the last checkHot
	tables  []*table
	keys    int // (key, policy) entries
	used    int // the same, weighed in units of about 32 bytes (see logWeight)
	calls   uint32
	sweeps  uint32   // sweeps so far: the next one takes the next table
	_       [64]byte // keep shards on separate cache lines
}

// table holds the state of one policy (Name, Window, Algorithm) for every
// key of a shard. Only the part for its algorithm is used. Keys are their
// hash, made non-zero by nonZero.
type table struct {
	fp      uint64
	alg     core.Algorithm
	window  int64
	fixed   hashTable[fixedCell]
	sliding hashTable[slidingCell]
	logs    hashTable[*algo.SlidingLogState]
}

// logWeight is what a sliding log counts against WithMaxKeys, in units of
// a counter entry (about 32 bytes): its slot and struct, about four, plus
// its buffer of 16-byte records.
func logWeight(l *algo.SlidingLogState) int { return 4 + l.Cap()/2 }

func (sh *shard) find(fp uint64) *table {
	for _, t := range sh.tables {
		if t.fp == fp {
			return t
		}
	}
	return nil
}

// table returns the table of p, whose Fingerprint is fp, creating it on
// first use.
func (sh *shard) table(p *core.Policy, fp uint64) *table {
	if len(sh.tables) > 0 && sh.tables[0].fp == fp {
		return sh.tables[0] // most limiters have one policy
	}
	if t := sh.find(fp); t != nil {
		return t
	}
	t := &table{fp: fp, alg: p.Algorithm, window: p.Window.Milliseconds()}
	sh.tables = append(sh.tables, t)
	return t
}

// len returns how many keys t holds.
func (t *table) len() int { return t.fixed.n + t.sliding.n + t.logs.n }

// remove deletes key hash h and returns how many entries and units it
// removed.
func (t *table) remove(h uint64) (entries, units int) {
	switch t.alg {
	case core.FixedWindow:
		if t.fixed.remove(h) {
			return 1, 1
		}
	case core.SlidingLog:
		if i := t.logs.find(h); i >= 0 {
			units = logWeight(t.logs.slots[i].s)
			t.logs.deleteAt(i)
			t.logs.shrink()
			return 1, units
		}
	default:
		if t.sliding.remove(h) {
			return 1, 1
		}
	}
	return 0, 0
}

// sweep examines up to n entries from a pseudo-random point (start, a key
// hash) and deletes the expired ones; with evict, if none was expired it
// deletes one anyway. It never deletes keep, the key being served, nor
// pinned, the shard's hot key (0 for none), whose slot holds a stale state
// (see hotCell). It returns how many entries and units it deleted.
func (t *table) sweep(start, keep, pinned uint64, now int64, n int, evict bool) (entries, units int) {
	w := t.window
	switch t.alg {
	case core.FixedWindow:
		entries = t.fixed.sweep(start, keep, pinned, n, func(c *fixedCell) bool { return c.state().Expired(now, w) }, evict, nil)
		return entries, entries
	case core.SlidingLog:
		entries = t.logs.sweep(start, keep, pinned, n, func(l **algo.SlidingLogState) bool { return (*l).Expired(now, w) }, evict,
			func(l **algo.SlidingLogState) { units += logWeight(*l) })
		return entries, units
	default:
		entries = t.sliding.sweep(start, keep, pinned, n, func(c *slidingCell) bool { return c.state().Expired(now, w) }, evict, nil)
		return entries, entries
	}
}

// lock takes the mutex and reports whether it had to wait for it: another
// goroutine held it, the sign on which decideSingle gives the key a hot
// cell (see hotCell).
func (sh *shard) lock() (waited bool) {
	if sh.mu.TryLock() {
		return false
	}
	sh.mu.Lock()
	return true
}
