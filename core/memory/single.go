package memory

import (
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/internal/algo"
)

// decideSingle is decide for a limiter with a single policy, by far the common case:
// no per-policy scratch arrays, an existing key's cell is found once and
// updated in place, and evaluating and charging are one step. now and up
// are the call's instant in Unix milliseconds, rounded down and up.
//
// The fixed-window and sliding-counter branches are the same steps on two
// cell types, written out twice on purpose: a generic helper would call
// Eval and Take through a dictionary, not inline them, on the hottest path.
func (s *store) decideSingle(ps *core.PolicyState, key string, p *core.Policy, cost, now, up int64, charge bool) {
	h := s.hash(key)
	sh := &s.shards[h&s.mask]
	fp := p.Fingerprint()
	if charge {
		if c := sh.hotFor(h, fp); c != nil {
			if ok, sweep := c.take(ps, p.Limit, cost, now, up); ok {
				// Decided on the key's hot cell, without the mutex. Now
				// and then, sweep as the locked calls it replaces would.
				if sweep && sh.mu.TryLock() {
					s.sweep(sh, h, now)
					sh.mu.Unlock()
				}
				return
			}
		}
	}
	waited := sh.lock()
	t := sh.table(p, fp)
	lim, w := p.Limit, t.window
	switch t.alg {
	case core.FixedWindow:
		sh.retireKey(h) // the slot below must hold the key's state
		i := t.fixed.find(h)
		var st algo.FixedWindowState
		if i >= 0 {
			st = t.fixed.slots[i].s.state()
		}
		start := st.Start
		if !charge {
			st, *ps = st.Eval(now, lim, w, cost)
		} else {
			st, *ps = st.Take(now, lim, w, cost)
		}
		switch {
		case !ps.Allowed || !charge:
			if i >= 0 && st.Start < start {
				t.fixed.slots[i].s = toFixedCell(st) // rebased after a clock step back
			}
		case i >= 0:
			t.fixed.slots[i].s = toFixedCell(st)
		default:
			s.addEntry(sh, t, h, now, 1)
			t.fixed.put(h, toFixedCell(st))
		}
		if waited && charge && i >= 0 {
			// Other goroutines want this key too: let them decide on a
			// hot cell rather than queue here.
			c := t.fixed.slots[i].s
			sh.install(h, t, lim, c.start, 0, int64(c.count))
		}
	case core.SlidingLog:
		s.decideSingleLog(ps, sh, t, h, lim, cost, now, up, charge, waited)
	default:
		sh.retireKey(h) // the slot below must hold the key's state
		i := t.sliding.find(h)
		var st algo.SlidingWindowState
		if i >= 0 {
			st = t.sliding.slots[i].s.state()
		}
		start := st.Start
		if !charge {
			st, *ps = st.Eval(now, lim, w, cost)
		} else {
			st, *ps = st.Take(now, lim, w, cost)
		}
		switch {
		case !ps.Allowed || !charge:
			if i >= 0 && st.Start < start {
				t.sliding.slots[i].s = toSlidingCell(st) // rebased after a clock step back
			}
		case i >= 0:
			t.sliding.slots[i].s = toSlidingCell(st)
		default:
			s.addEntry(sh, t, h, now, 1)
			t.sliding.put(h, toSlidingCell(st))
		}
		if waited && charge && i >= 0 {
			c := t.sliding.slots[i].s // see the fixed window's
			sh.install(h, t, lim, c.start, int64(c.prev), int64(c.curr))
		}
	}
	s.sweepSometimes(sh, h, now)
	sh.mu.Unlock()
}

// decideSingleLog is decideSingle's sliding-log branch; waited is whether
// the caller had to wait for the mutex.
func (s *store) decideSingleLog(ps *core.PolicyState, sh *shard, t *table, h uint64, lim, cost, now, up int64, charge, waited bool) {
	late := false
	if c := sh.hot.Load(); c != nil && c.h == h {
		if charge && c.fp == t.fp {
			// The key got a cell while this call waited for the mutex:
			// decide on it, if it is for this instant, rather than retire it.
			if ok, _ := c.take(ps, lim, cost, now, up); ok {
				return
			}
		}
		// A call that read the clock before the cell's instant: it retires
		// the cell, but makes none for an instant that is over.
		late = c.log != nil && now < c.now
		sh.retire() // the log must hold what the cell admitted
	}
	w := t.window
	var l *algo.SlidingLogState
	if i := t.logs.find(h); i >= 0 {
		l = t.logs.slots[i].s
	}
	if l == nil {
		var empty algo.SlidingLogState
		if *ps = empty.Eval(now, up, lim, w, cost); !ps.Allowed || !charge {
			return
		}
		l = new(algo.SlidingLogState)
		*ps = l.Charge(now, up, lim, w, cost)
		s.addEntry(sh, t, h, now, logWeight(l))
		t.logs.put(h, l)
		return
	}
	before := logWeight(l)
	if charge {
		*ps = l.Take(now, up, lim, w, cost)
	} else {
		*ps = l.Eval(now, up, lim, w, cost)
	}
	if d := logWeight(l) - before; d != 0 {
		s.reweigh(sh, h, now, d)
	}
	if waited && charge && ps.Allowed && !late {
		// Other goroutines want this key too: let the ones that come in
		// the same millisecond decide on a hot cell rather than queue here.
		sh.installLog(h, t, l, lim, now, up)
	}
}
