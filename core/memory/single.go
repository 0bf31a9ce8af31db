package memory

import (
	"github.com/ratewindow/ratewindow/core"
)

// doOne is do for a limiter with a single policy, by far the common case:
// no per-policy scratch arrays, an existing key's cell is found once and
// updated in place, and evaluating and charging are one step.
//
// The fixed-window and sliding-counter branches are the same steps on two
// cell types, written out twice on purpose: a generic helper would call
// Eval and Take through a dictionary, not inline them, on the hottest path.
func (s *Store) doOne(ps *core.PolicyState, key string, p *core.Policy, cost, now int64, charge bool) {
	h := s.hash(key)
	sh := &s.shards[h&s.mask]
	sh.mu.Lock()
	t := sh.table(p)
	lim, w := p.Limit, t.window
	switch t.alg {
	case core.FixedWindow:
		i := t.fixed.find(h)
		var st core.FixedWindowState
		if i >= 0 {
			st = t.fixed.slots[i].s.state()
		}
		if !charge {
			_, *ps = st.Eval(now, lim, w, cost)
			break
		}
		if st, *ps = st.Take(now, lim, w, cost); !ps.Allowed {
			break
		}
		if i >= 0 {
			t.fixed.slots[i].s = toFixedCell(st)
		} else {
			s.admit(sh, t, h, now)
			t.fixed.put(h, toFixedCell(st))
		}
	case core.SlidingLog:
		l := t.logs[h]
		fresh := l == nil
		if fresh {
			l = new(core.SlidingLogState)
		}
		if *ps = l.Eval(now, lim, w, cost); ps.Allowed && charge {
			if fresh {
				s.admit(sh, t, h, now)
				t.logs[h] = l
			}
			*ps = l.Charge(now, lim, w, cost)
		}
	default:
		i := t.sliding.find(h)
		var st core.SlidingWindowState
		if i >= 0 {
			st = t.sliding.slots[i].s.state()
		}
		if !charge {
			_, *ps = st.Eval(now, lim, w, cost)
			break
		}
		if st, *ps = st.Take(now, lim, w, cost); !ps.Allowed {
			break
		}
		if i >= 0 {
			t.sliding.slots[i].s = toSlidingCell(st)
		} else {
			s.admit(sh, t, h, now)
			t.sliding.put(h, toSlidingCell(st))
		}
	}
	sh.mu.Unlock()
}
