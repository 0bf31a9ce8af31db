package memory

import (
	"sync"

	"github.com/ratewindow/ratewindow/core"
)

const (
	// sweepSample is how many entries an insert examines for expiry.
	sweepSample = 4
	// evictSample is how many entries a full shard examines for a victim.
	evictSample = 8
)

// shard is one lock and the per-policy tables of the keys that hash to it.
type shard struct {
	mu     sync.Mutex
	tables []*table
	keys   int
	_      [64]byte // keep shards on separate cache lines
}

// table holds the state of one policy (Name, Window, Algorithm) for every
// key of a shard. Only the part for its algorithm is used. Keys are their
// hash, made non-zero by fix.
type table struct {
	fp      uint64
	alg     core.Algorithm
	window  int64
	fixed   hashTable[fixedCell]
	sliding hashTable[slidingCell]
	logs    map[uint64]*core.SlidingLogState
}

func (sh *shard) find(fp uint64) *table {
	for _, t := range sh.tables {
		if t.fp == fp {
			return t
		}
	}
	return nil
}

// table returns p's table, creating it on first use.
func (sh *shard) table(p *core.Policy) *table {
	fp := p.Fingerprint()
	if len(sh.tables) > 0 && sh.tables[0].fp == fp {
		return sh.tables[0] // most limiters have one policy
	}
	if t := sh.find(fp); t != nil {
		return t
	}
	t := &table{fp: fp, alg: p.Algorithm, window: p.WindowMillis()}
	if t.alg == core.SlidingLog {
		t.logs = make(map[uint64]*core.SlidingLogState)
	}
	sh.tables = append(sh.tables, t)
	return t
}

// remove deletes key hash h and returns how many entries it removed.
func (t *table) remove(h uint64) int {
	switch t.alg {
	case core.FixedWindow:
		if t.fixed.remove(h) {
			return 1
		}
	case core.SlidingLog:
		if _, ok := t.logs[h]; ok {
			delete(t.logs, h)
			return 1
		}
	default:
		if t.sliding.remove(h) {
			return 1
		}
	}
	return 0
}

// sweep examines up to n entries from a pseudo-random point (start, a key
// hash) and deletes the expired ones. With evict, if none was expired it
// deletes one anyway. It returns how many entries it deleted.
func (t *table) sweep(start uint64, now int64, n int, evict bool) int {
	w := t.window
	switch t.alg {
	case core.FixedWindow:
		return t.fixed.sweep(start, n, func(c *fixedCell) bool { return c.state().Expired(now, w) }, evict)
	case core.SlidingLog:
		return t.sweepLogs(now, n, evict)
	default:
		return t.sliding.sweep(start, n, func(c *slidingCell) bool { return c.state().Expired(now, w) }, evict)
	}
}

// sweepLogs is sweep for the sliding-log map; Go's map iteration starts at
// a random point.
func (t *table) sweepLogs(now int64, n int, evict bool) int {
	deleted, seen := 0, 0
	var first uint64
	for h, l := range t.logs {
		if seen == 0 {
			first = h
		}
		if seen++; l.Expired(now, t.window) {
			delete(t.logs, h)
			deleted++
		}
		if seen >= n {
			break
		}
	}
	if evict && deleted == 0 && seen > 0 {
		delete(t.logs, first)
		deleted = 1
	}
	return deleted
}
