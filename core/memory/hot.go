package memory

import (
	"sync/atomic"

	"github.com/ratewindow/ratewindow/core"
)

// A hot cell lets the goroutines that contend for one fixed-window key
// decide without the shard's mutex, by a compare-and-swap on one word.
//
// Each shard holds at most one hot cell (shard.hot). doOne installs one,
// under the mutex, for a fixed-window key that it found the mutex held for
// (see shard.lock): a key that many goroutines use at once, such as a
// global limit. From then on the key's state lives in the cell's word, and
// its slot in the table keeps a stale copy that nothing reads. The cell
// leaves the shard only by retire, under the mutex, which swaps the word
// for the retired mark and writes the last state back into the slot.
//
// Why a decision on the cell is exact, as if the mutex were held:
//   - A cell's identity (key hash, table, base) never changes: a cell is
//     never reused for another key, so a goroutine that loaded the cell
//     and checked its identity updates the right key's state whatever
//     happened to shard.hot since.
//   - A decision loads the word, computes the next state with the same
//     core.FixedWindowState.Take the locked path uses, and stores it with
//     CompareAndSwap from the word it loaded: it succeeds only if no other
//     decision changed the word in between, and otherwise starts again
//     from the new word. Admissions are therefore a total order of Take
//     steps, each from the state the previous one left: the count never
//     goes over the limit. A denial changes nothing; it is ordered at the
//     load that saw the count too high.
//   - retire's Swap is one more such step: an admission ordered before it
//     is in the state it writes back to the slot, and one after it would
//     need a CompareAndSwap from the retired mark, which a decision never
//     attempts (it falls back to the mutex instead).
//   - Under the mutex, every path that reads or deletes a key's slot first
//     deals with the cell: a locked decision, Peek or Reset on the key
//     retires it; sweeps and evictions skip its slot; touch retires it once
//     its window is over, so an idle hot key is reclaimed like any other.
type hotCell struct {
	h      uint64 // key hash
	t      *table // the key's fixed-window table
	fp     uint64 // t.fp, copied so a decision reads one cache line
	window int64  // t.window, copied likewise
	base   int64  // window start (Unix ms) that word's offset counts from
	// word packs the state: the window start's offset from base in
	// milliseconds (high 32 bits) and the count (low 32 bits; counts fit,
	// as core.MaxLimit does), or retired.
	word atomic.Uint64
}

// retired marks a cell that no longer holds its key's state. pack never
// returns it: an offset of 2^32 − 1 does not fit (see pack).
const retired = ^uint64(0)

// newHotCell returns a cell holding st, the state of key hash h in t.
func newHotCell(h uint64, t *table, st core.FixedWindowState) *hotCell {
	c := &hotCell{h: h, t: t, fp: t.fp, window: t.window, base: st.Start}
	w, _ := c.pack(st) // st.Start is base: it fits
	c.word.Store(w)
	return c
}

// pack returns st as a word, or false when st's window start is before
// base or 2^32 − 1 ms (about 49 days) or more after it.
func (c *hotCell) pack(st core.FixedWindowState) (uint64, bool) {
	off := st.Start - c.base
	if off < 0 || off >= 1<<32-1 {
		return 0, false
	}
	return uint64(off)<<32 | uint64(st.Count), true
}

func (c *hotCell) unpack(w uint64) core.FixedWindowState {
	return core.FixedWindowState{Start: c.base + int64(w>>32), Count: int64(uint32(w))}
}

// take is doOne's fixed-window decision (charge) on the cell. It reports
// false, deciding nothing, when the cell is retired or the next state does
// not fit a word (a clock stepped back, or 49 days of one hot cell): the
// caller then decides under the mutex.
func (c *hotCell) take(ps *core.PolicyState, lim, cost, now int64) bool {
	for {
		w := c.word.Load()
		if w == retired {
			return false
		}
		cur := c.unpack(w)
		st, out := cur.Take(now, lim, c.window, cost)
		if !out.Allowed {
			if st.Start < cur.Start {
				return false // a rebase after a clock step back: the locked path stores it
			}
			*ps = out
			return true
		}
		next, ok := c.pack(st)
		if !ok {
			return false
		}
		if c.word.CompareAndSwap(w, next) {
			*ps = out
			return true
		}
	}
}

// hotFor returns the shard's live hot cell for key hash h in the table
// with fingerprint fp, or nil. It reads the cell without the mutex.
func (sh *shard) hotFor(h, fp uint64) *hotCell {
	if c := sh.hot.Load(); c != nil && c.h == h && c.fp == fp {
		return c
	}
	return nil
}

// retire ends the shard's hot cell, if any, writing the key's state back
// into its slot. The caller holds the mutex.
func (sh *shard) retire() {
	c := sh.hot.Load()
	if c == nil {
		return
	}
	sh.hot.Store(nil)
	st := c.unpack(c.word.Swap(retired))
	if i := c.t.fixed.find(c.h); i >= 0 {
		c.t.fixed.slots[i].s = toFixedCell(st)
	}
}

// retireKey retires the shard's hot cell if it holds key hash h. The caller
// holds the mutex.
func (sh *shard) retireKey(h uint64) {
	if c := sh.hot.Load(); c != nil && c.h == h {
		sh.retire()
	}
}

// install makes a hot cell for key hash h, whose slot in t holds st, if
// the shard has none. The caller holds the mutex.
func (sh *shard) install(h uint64, t *table, st core.FixedWindowState) {
	if sh.hot.Load() == nil {
		sh.hot.Store(newHotCell(h, t, st))
		sh.hotSeen = retired // no word: the first check keeps the cell
	}
}

// checkHot retires the shard's hot cell when its window is over at now, or
// when its word did not change since the previous check (no admission in
// between: the key went quiet, or was never the hot one), so the cell goes
// to a key that needs it. touch calls it; the caller holds the mutex.
func (sh *shard) checkHot(now int64) {
	c := sh.hot.Load()
	if c == nil {
		return
	}
	w := c.word.Load()
	if w == sh.hotSeen || c.unpack(w).Expired(now, c.window) {
		sh.retire()
		return
	}
	sh.hotSeen = w
}

// hotHash returns the key hash of the shard's hot cell if it lies in t,
// else 0 (never a key hash): the slot that sweeps of t must skip. The
// caller holds the mutex.
func (sh *shard) hotHash(t *table) uint64 {
	if c := sh.hot.Load(); c != nil && c.t == t {
		return c.h
	}
	return 0
}
