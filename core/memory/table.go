package memory

import "math/bits"

// hashTable is an open-addressing hash table from a key hash to a small
// state S: one flat slice of slots, linear probing, no tombstones
// (deletion shifts the following run back). Capacity grows by half again
// rather than doubling, and a slot's home is found by multiplying the hash
// by the capacity (so any capacity works), which keeps the table between
// about 58% and 87% full. With 24-byte slots that is about 28 to 41 bytes
// per key, less than Go's built-in map needs for the same state. When
// deletions leave it less than a quarter full it shrinks to half full, so
// memory taken by a flood of keys is given back once they expire.
//
// Hash 0 marks an empty slot; key hashes are remapped away from it.
type hashTable[S any] struct {
	slots []slot[S]
	n     int
}

type slot[S any] struct {
	h uint64
	s S
}

const minTableCap = 8

// nonZero maps a key hash to a non-zero one.
func nonZero(h uint64) uint64 {
	if h == 0 {
		return 1
	}
	return h
}

func (t *hashTable[S]) home(h uint64) int {
	hi, _ := bits.Mul64(h, uint64(len(t.slots)))
	return int(hi)
}

func (t *hashTable[S]) next(i int) int {
	if i++; i == len(t.slots) {
		return 0
	}
	return i
}

// find returns the index of h's slot, or -1.
func (t *hashTable[S]) find(h uint64) int {
	if len(t.slots) == 0 {
		return -1
	}
	for i := t.home(h); ; i = t.next(i) {
		switch t.slots[i].h {
		case h:
			return i
		case 0:
			return -1
		}
	}
}

// get returns h's state and whether it was present.
func (t *hashTable[S]) get(h uint64) (S, bool) {
	if i := t.find(h); i >= 0 {
		return t.slots[i].s, true
	}
	var zero S
	return zero, false
}

// put stores s under h, growing the table when it is too full.
func (t *hashTable[S]) put(h uint64, s S) {
	if i := t.find(h); i >= 0 {
		t.slots[i].s = s
		return
	}
	if (t.n+1)*8 > len(t.slots)*7 {
		t.grow()
	}
	i := t.home(h)
	for t.slots[i].h != 0 {
		i = t.next(i)
	}
	t.slots[i] = slot[S]{h: h, s: s}
	t.n++
}

func (t *hashTable[S]) grow() { t.rehash(max(minTableCap, len(t.slots)+len(t.slots)/2)) }

// shrink halves the table's fill when it is less than a quarter full.
func (t *hashTable[S]) shrink() {
	if len(t.slots) > minTableCap && 4*t.n < len(t.slots) {
		t.rehash(max(minTableCap, 2*t.n))
	}
}

// rehash moves the entries to a table of c slots (c > n).
func (t *hashTable[S]) rehash(c int) {
	old := t.slots
	t.slots = make([]slot[S], c)
	t.n = 0
	for _, sl := range old {
		if sl.h != 0 {
			i := t.home(sl.h)
			for t.slots[i].h != 0 {
				i = t.next(i)
			}
			t.slots[i] = sl
			t.n++
		}
	}
}

// deleteAt empties slot i and shifts back the entries of the run after it
// that would otherwise be cut off from their home.
func (t *hashTable[S]) deleteAt(i int) {
	t.n--
	for j := t.next(i); t.slots[j].h != 0; j = t.next(j) {
		home := t.home(t.slots[j].h)
		// Move j to i unless its home lies cyclically in (i, j].
		if i <= j {
			if i < home && home <= j {
				continue
			}
		} else if i < home || home <= j {
			continue
		}
		t.slots[i] = t.slots[j]
		i = j
	}
	t.slots[i] = slot[S]{}
}

// remove deletes h and reports whether it was present.
func (t *hashTable[S]) remove(h uint64) bool {
	i := t.find(h)
	if i < 0 {
		return false
	}
	t.deleteAt(i)
	t.shrink()
	return true
}

// maxSweep bounds the entries one sweep examines.
const maxSweep = 256

// sweep examines n occupied slots from position start, more while every
// one examined was dead (up to maxSweep, so the expired remains of a flood
// go quickly), and deletes those dead says are dead, calling gone (when not
// nil) on each first. With evict, if none was dead it deletes the first one
// examined. It never deletes keep or pinned. It returns how many it deleted.
func (t *hashTable[S]) sweep(start, keep, pinned uint64, n int, dead func(*S) bool, evict bool, gone func(*S)) int {
	if t.n == 0 {
		return 0
	}
	deleted, seen, first := 0, 0, -1
	i := t.home(start)
	for steps := 0; steps < len(t.slots); steps++ {
		if seen >= n && (deleted < seen || seen >= maxSweep) {
			break
		}
		sl := &t.slots[i]
		if sl.h == 0 || sl.h == keep || sl.h == pinned {
			i = t.next(i)
			continue
		}
		seen++
		if dead(&sl.s) {
			if gone != nil {
				gone(&sl.s)
			}
			t.deleteAt(i)
			deleted++
			continue // slot i now holds a shifted entry, or is empty
		}
		if first < 0 {
			first = i
		}
		i = t.next(i)
	}
	if evict && deleted == 0 && first >= 0 {
		if gone != nil {
			gone(&t.slots[first].s)
		}
		t.deleteAt(first)
		deleted = 1
	}
	if deleted > 0 {
		t.shrink()
	}
	return deleted
}
