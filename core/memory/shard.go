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
// key of a shard. Only the map of its algorithm is used.
type table struct {
	fp      uint64
	alg     core.Algorithm
	window  int64
	fixed   map[uint64]core.FixedWindowState
	sliding map[uint64]core.SlidingWindowState
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
	if t := sh.find(fp); t != nil {
		return t
	}
	t := &table{fp: fp, alg: p.Algorithm, window: p.WindowMillis()}
	switch t.alg {
	case core.FixedWindow:
		t.fixed = make(map[uint64]core.FixedWindowState)
	case core.SlidingLog:
		t.logs = make(map[uint64]*core.SlidingLogState)
	default:
		t.sliding = make(map[uint64]core.SlidingWindowState)
	}
	sh.tables = append(sh.tables, t)
	return t
}

func (t *table) has(h uint64) bool {
	var ok bool
	switch t.alg {
	case core.FixedWindow:
		_, ok = t.fixed[h]
	case core.SlidingLog:
		_, ok = t.logs[h]
	default:
		_, ok = t.sliding[h]
	}
	return ok
}

// remove deletes key hash h and returns how many entries it removed.
func (t *table) remove(h uint64) int {
	if !t.has(h) {
		return 0
	}
	delete(t.fixed, h)
	delete(t.sliding, h)
	delete(t.logs, h)
	return 1
}

// sweep examines up to n entries from a random point of the table and
// deletes the expired ones. With evict, if none was expired it deletes the
// first one examined. It returns how many entries it deleted.
func (t *table) sweep(now int64, n int, evict bool) int {
	deleted, seen := 0, 0
	var first uint64
	visit := func(h uint64, expired bool) bool {
		if seen == 0 {
			first = h
		}
		seen++
		if expired {
			t.remove(h)
			deleted++
		}
		return seen < n
	}
	switch t.alg {
	case core.FixedWindow:
		for h, st := range t.fixed {
			if !visit(h, st.Expired(now, t.window)) {
				break
			}
		}
	case core.SlidingLog:
		for h, l := range t.logs {
			if !visit(h, l.Expired(now, t.window)) {
				break
			}
		}
	default:
		for h, st := range t.sliding {
			if !visit(h, st.Expired(now, t.window)) {
				break
			}
		}
	}
	if evict && deleted == 0 && seen > 0 {
		deleted = t.remove(first)
	}
	return deleted
}
