package oracle

import (
	"time"

	"github.com/ratewindow/ratewindow/core"
)

// charge is one admitted request: cost units at t (Unix ms).
type charge struct{ t, cost int64 }

// Oracle is a deliberately naive model of a Store, written from the
// algorithm definitions rather than from the state types the stores use.
// It is not safe for concurrent use.
type Oracle struct {
	charges map[string][]charge // key + "\x00" + policy name
}

// New returns an Oracle with no charges.
func New() *Oracle { return &Oracle{charges: map[string][]charge{}} }

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// sum adds the cost of the charges whose time satisfies in.
func sum(cs []charge, in func(t int64) bool) int64 {
	n := int64(0)
	for _, c := range cs {
		if in(c.t) {
			n += c.cost
		}
	}
	return n
}

// used returns the amount the policy counts against its limit at now,
// multiplied by the window (so the sliding counter stays an integer).
func used(p core.Policy, cs []charge, now int64) int64 {
	w := p.Window.Milliseconds()
	k := floorDiv(now, w)
	switch p.Algorithm {
	case core.FixedWindow:
		return w * sum(cs, func(t int64) bool { return floorDiv(t, w) == k })
	case core.SlidingLog:
		return w * sum(cs, func(t int64) bool { return t > now-w })
	default:
		prev := sum(cs, func(t int64) bool { return floorDiv(t, w) == k-1 })
		curr := sum(cs, func(t int64) bool { return floorDiv(t, w) == k })
		elapsed := now - k*w
		return prev*(w-elapsed) + curr*w
	}
}

func allows(p core.Policy, cs []charge, now, cost int64) bool {
	return used(p, cs, now)+cost*p.Window.Milliseconds() <= p.Limit*p.Window.Milliseconds()
}

// state computes one policy's state at now by brute force.
func state(p core.Policy, cs []charge, now, cost int64) core.PolicyState {
	w := p.Window.Milliseconds()
	var ps core.PolicyState
	ps.Allowed = allows(p, cs, now, cost)
	ps.Remaining = max(0, (p.Limit*w-used(p, cs, now))/w)
	if !ps.Allowed {
		for d := int64(1); d <= 2*w; d++ {
			if allows(p, cs, now+d, cost) {
				ps.RetryAfter = time.Duration(d) * time.Millisecond
				break
			}
		}
	}
	for d := int64(0); d <= 2*w; d++ {
		if used(p, cs, now+d) == 0 {
			ps.ResetAfter = time.Duration(d) * time.Millisecond
			break
		}
	}
	return ps
}

// Take mirrors Store.Take (charge) and Store.Peek (no charge), at now in
// Unix milliseconds.
func (o *Oracle) Take(key string, policies []core.Policy, cost, now int64, charge_ bool) core.Result {
	var r core.Result
	all := true
	for i, p := range policies {
		r.States[i] = state(p, o.charges[key+"\x00"+p.Name], now, cost)
		all = all && r.States[i].Allowed
	}
	if !all || !charge_ {
		return r
	}
	for i, p := range policies {
		id := key + "\x00" + p.Name
		o.charges[id] = prune(append(o.charges[id], charge{now, cost}), now-2*p.Window.Milliseconds())
		r.States[i] = state(p, o.charges[id], now, cost)
		r.States[i].Allowed = true
		r.States[i].RetryAfter = 0
	}
	return r
}

// prune drops charges that no algorithm can count any more.
func prune(cs []charge, before int64) []charge {
	i := 0
	for i < len(cs) && cs[i].t < before {
		i++
	}
	return cs[i:]
}

// Reset mirrors Store.Reset.
func (o *Oracle) Reset(key string, policies []core.Policy) {
	for _, p := range policies {
		delete(o.charges, key+"\x00"+p.Name)
	}
}
