package memory

import (
	"math/bits"
	"sync/atomic"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/internal/algo"
)

// A hot cell lets the goroutines that contend for one key decide without
// the shard's mutex, by a compare-and-swap on one word.
//
// Each shard holds at most one hot cell (shard.hot). decideSingle installs one,
// under the mutex, for a key that it found the mutex held for (see
// shard.lock): a key that many goroutines use at once, such as a global
// limit. The cell leaves the shard only by retire, under the mutex, which
// swaps the word for the retired mark and writes what the cell admitted
// back into the key's slot.
//
// A fixed-window or sliding-counter cell holds the key's whole state, its
// window and counts packed in the word; while it lives the key's slot in
// the table keeps a stale copy that nothing reads. It serves the key for
// as long as it lives, across windows.
//
// A sliding log is a buffer of records, not a word, so its cell serves one
// instant only: one (now, up) pair of decideSingle, a millisecond of a
// real clock. Takes at that instant all add to the log's newest record
// (see algo.SlidingLogState.Basis), so their effect is one number, the
// units they admitted: the cell's word. Its fixed part is what the
// admissions start from, read off the log under the mutex after a locked
// admission at that instant: the units in the window at now (count) and
// the instant the admissions are recorded at. A decision at another
// instant, one that does not fit, or a denial (whose wait only the log can
// tell) goes to the mutex, which retires the cell, folding its units into
// the log with one Charge. The next locked admission of a contended key
// makes a new cell for its own instant; a charge that queued on the mutex
// while that cell was made, at the same instant, decides on the cell
// under the mutex instead of retiring it. While the cell lives, the log is
// read and written only under the mutex, and only to fold into it or to
// check it for expiry: decisions on the cell read its fixed fields and the
// word, never the log.
//
// Why a decision on the cell is exact, as if the mutex were held:
//   - A cell's identity (key hash, table, base and widths, or instant and
//     count) never changes: a cell is never reused for another key or
//     instant, so a goroutine that loaded the cell and checked its
//     identity updates the right key's state whatever happened to
//     shard.hot since.
//   - A decision loads the word, computes the next state with the same
//     Take the locked path uses (for a log, admits while count + used +
//     cost ≤ limit, as Take on the log would), and stores it with
//     CompareAndSwap from the word it loaded: it succeeds only if no other
//     decision changed the word in between, and otherwise starts again
//     from the new word. Admissions are therefore a total order of Take
//     steps, each from the state the previous one left, exactly as under
//     the mutex. A denial changes nothing; it is ordered at the load that
//     saw no room.
//   - retire's Swap is one more such step: an admission ordered before it
//     is in the state it writes back to the slot, and one after it would
//     need a CompareAndSwap from the retired mark, which a decision never
//     attempts (it falls back to the mutex instead).
//   - Under the mutex, every path that reads or deletes a key's slot first
//     deals with the cell: a locked decision (unless it decides on the
//     cell), Peek or Reset on the key retires it; sweeps and evictions skip
//     its slot; sweepSometimes retires it once it is idle or expired, so a
//     quiet hot key is reclaimed like any other.
//     A log's count therefore stays what it was when the cell was made:
//     nothing but the cell changes the log while the cell lives, and the
//     cell never moves to another instant, so it never sees the log
//     rebased or its old records leave the window.
//
// A counter's word packs the state as three fields, from the high bits
// down: the index of the window (bucket) start counted in windows from
// base, the previous bucket's count (none for a fixed window) and the
// current one's, each count in width bits, the index in what is left. A
// state that does not fit (a count over 2^width − 1 after the limit was
// raised, a start before base after a clock step back, an index past the
// field) sends the decision to the mutex, which retires the cell.
type hotCell struct {
	h      uint64 // key hash
	t      *table // the key's table
	fp     uint64 // t.fp, copied so a decision reads one cache line
	window int64  // t.window, copied likewise
	alg    core.Algorithm
	base   int64 // the window start that index 0 stands for (Unix ms)
	width  uint  // bits per count
	counts uint  // bits of all counts: width, or 2·width with a previous one
	word   atomic.Uint64

	// A sliding log's cell: the word is the units admitted on it.
	log      *algo.SlidingLogState // read and written only under the mutex
	now, up  int64                 // the instant it serves
	recordAt int64                 // where its admissions are recorded
	count    int64                 // the units in the window at now before its own
	limit    int64                 // the limit it was made under, for the fold
}

// retired marks a cell that no longer holds its key's state: every bit
// set, an index that pack never writes.
const retired = ^uint64(0)

// newHotCell returns a cell holding the state (start, prev, curr) of key
// hash h in t, whose policy now has limit lim, or nil when lim is too large
// to leave room for an index (a sliding counter's of 2^31 or more).
func newHotCell(h uint64, t *table, lim, start, prev, curr int64) *hotCell {
	width := uint(bits.Len64(uint64(max(lim, prev, curr))))
	counts := width
	if t.alg != core.FixedWindow {
		counts = 2 * width
	}
	if counts > 62 {
		return nil
	}
	c := &hotCell{h: h, t: t, fp: t.fp, window: t.window, alg: t.alg, base: start, width: width, counts: counts}
	w, ok := c.pack(0, prev, curr)
	if !ok {
		return nil
	}
	c.word.Store(w)
	return c
}

// newLogCell returns a cell for Takes at (now, up) on key hash h's log l
// in t, whose policy now has limit lim, or nil when a Take at now would
// rebase l.
func newLogCell(h uint64, t *table, l *algo.SlidingLogState, lim, now, up int64) *hotCell {
	count, at, ok := l.Basis(now, up, t.window)
	if !ok {
		return nil
	}
	return &hotCell{h: h, t: t, fp: t.fp, window: t.window, alg: t.alg,
		log: l, now: now, up: up, recordAt: at, count: count, limit: lim}
}

// pack returns the state (base + idx·window, prev, curr) as a word, or
// false when it does not fit.
func (c *hotCell) pack(idx uint64, prev, curr int64) (uint64, bool) {
	limit := int64(1)<<c.width - 1
	if prev > limit || curr > limit || idx >= 1<<(64-c.counts)-1 {
		return 0, false // (an index of all ones would be the retired mark)
	}
	if c.counts == c.width {
		prev = 0 // no field for it (a fixed window's is always 0)
	}
	return idx<<c.counts | uint64(prev)<<c.width | uint64(curr), true
}

// unpack returns the state a (non-retired) word holds.
func (c *hotCell) unpack(w uint64) (start, prev, curr int64) {
	mask := uint64(1)<<c.width - 1
	start = c.base + int64(w>>c.counts)*c.window
	if c.counts > c.width {
		prev = int64(w >> c.width & mask)
	}
	return start, prev, int64(w & mask)
}

// take is decideSingle's decision (with charge) on the cell, at the
// instant now (rounded down) and up (rounded up). It reports false,
// deciding nothing, when the cell is retired or the next state does not fit
// the word, or for a log when the instant is not the cell's or the decision
// is not an admission: the caller then decides under the mutex. It reports
// sweep when the admission moved the key to a later window or its count past a
// multiple of sweepEvery: the caller then sweeps the shard a little, as
// about every sweepEvery calls under the mutex would.
func (c *hotCell) take(ps *core.PolicyState, lim, cost, now, up int64) (decided, sweep bool) {
	if c.log != nil {
		return c.takeLog(ps, lim, cost, now, up)
	}
	for {
		w := c.word.Load()
		if w == retired {
			return false, false
		}
		start, prev, curr := c.unpack(w)
		var out core.PolicyState
		var next algo.SlidingWindowState // the fixed window's in Start and Curr
		if c.alg == core.FixedWindow {
			var st algo.FixedWindowState
			st, out = algo.FixedWindowState{Start: start, Count: curr}.Take(now, lim, c.window, cost)
			next = algo.SlidingWindowState{Start: st.Start, Curr: st.Count}
		} else {
			next, out = algo.SlidingWindowState{Start: start, Prev: prev, Curr: curr}.Take(now, lim, c.window, cost)
		}
		if next.Start < start {
			return false, false // a rebase after a clock step back: the locked path stores it
		}
		if !out.Allowed {
			*ps = out // the locked path, too, stores nothing on a denial
			return true, false
		}
		idx := w >> c.counts
		if next.Start != start {
			// A later window: starts are window-aligned, so this is exact.
			idx = uint64((next.Start - c.base) / c.window)
		}
		nw, ok := c.pack(idx, next.Prev, next.Curr)
		if !ok {
			return false, false
		}
		if c.word.CompareAndSwap(w, nw) {
			*ps = out
			return true, next.Start != start || next.Curr/sweepEvery != curr/sweepEvery
		}
	}
}

// takeLog is take on a sliding log's cell.
func (c *hotCell) takeLog(ps *core.PolicyState, lim, cost, now, up int64) (decided, sweep bool) {
	if now != c.now || up != c.up {
		return false, false
	}
	for {
		used := c.word.Load()
		if used == retired {
			return false, false
		}
		n := c.count + int64(used) + cost
		if n > lim {
			return false, false // a denial: its wait needs the log
		}
		if c.word.CompareAndSwap(used, used+uint64(cost)) {
			// What Take reports after adding cost to the newest record.
			*ps = algo.Admitted(now, lim, c.window, n, c.recordAt)
			return true, (used+uint64(cost))/sweepEvery != used/sweepEvery
		}
	}
}

// expired reports whether the state in word w holds nothing that counts at
// now.
func (c *hotCell) expired(w uint64, now int64) bool {
	if c.log != nil {
		return c.log.Expired(now, c.window) && (w == 0 || c.recordAt <= now-c.window)
	}
	start, prev, curr := c.unpack(w)
	if c.alg == core.FixedWindow {
		return algo.FixedWindowState{Start: start, Count: curr}.Expired(now, c.window)
	}
	return algo.SlidingWindowState{Start: start, Prev: prev, Curr: curr}.Expired(now, c.window)
}

// hotFor returns the shard's hot cell if it is for key hash h in the table
// with fingerprint fp, else nil. It reads the cell without the mutex.
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
	w := c.word.Swap(retired)
	if c.log != nil {
		sh.fold(c, w)
		return
	}
	start, prev, curr := c.unpack(w)
	if c.alg == core.FixedWindow {
		if i := c.t.fixed.find(c.h); i >= 0 {
			c.t.fixed.slots[i].s = fixedCell{start: start, count: uint32(curr)}
		}
	} else if i := c.t.sliding.find(c.h); i >= 0 {
		c.t.sliding.slots[i].s = slidingCell{start: start, prev: uint32(prev), curr: uint32(curr)}
	}
}

// fold adds the units u that the log cell c admitted to its log, as one
// Charge at the cell's instant, and counts any change of the log's buffer
// in the shard's weight (the next reweigh enforces the cap). A cell that
// decideSingle made, just after a locked admission at its instant, folds
// into the record that admission made, so the buffer does not change. The
// caller holds the mutex.
func (sh *shard) fold(c *hotCell, u uint64) {
	if u == 0 {
		return // no admission: Takes at the instant left the log as it was
	}
	before := logWeight(c.log)
	c.log.Charge(c.now, c.up, c.limit, c.window, int64(u))
	if c.t.logs.find(c.h) >= 0 {
		sh.used += logWeight(c.log) - before
	}
}

// retireKey retires the shard's hot cell if it holds key hash h. The caller
// holds the mutex.
func (sh *shard) retireKey(h uint64) {
	if c := sh.hot.Load(); c != nil && c.h == h {
		sh.retire()
	}
}

// install makes a hot cell for key hash h, whose slot in t holds the state
// (start, prev, curr), if the shard has none. The caller holds the mutex.
func (sh *shard) install(h uint64, t *table, lim, start, prev, curr int64) {
	if sh.hot.Load() == nil {
		sh.put(newHotCell(h, t, lim, start, prev, curr))
	}
}

// installLog makes a cell for Takes at (now, up) on key hash h's log l in
// t, if the shard has none. The caller holds the mutex.
func (sh *shard) installLog(h uint64, t *table, l *algo.SlidingLogState, lim, now, up int64) {
	if sh.hot.Load() == nil {
		sh.put(newLogCell(h, t, l, lim, now, up))
	}
}

// put makes c, if not nil, the shard's hot cell. The caller holds the
// mutex.
func (sh *shard) put(c *hotCell) {
	if c != nil {
		sh.hot.Store(c)
		sh.hotSeen = retired // no word: the first check keeps the cell
	}
}

// checkHot retires the shard's hot cell when it holds nothing that counts
// at now, or when its word did not change since the previous check (no
// admission in between: the key went quiet, or was never the hot one), so
// that the cell goes to a key that needs it. sweepSometimes calls it; the caller
// holds the mutex.
func (sh *shard) checkHot(now int64) {
	c := sh.hot.Load()
	if c == nil {
		return
	}
	w := c.word.Load()
	if w == sh.hotSeen || c.expired(w, now) {
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
