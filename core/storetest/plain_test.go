package storetest_test

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/internal/algo"
	"github.com/ratewindow/ratewindow/core/internal/callcheck"
)

// plainStore is the store a third-party author would write first: one
// mutex, one map, the algo states. It passes the suite as it is; its
// knobs break one promise each, for the mutants that a decorator over the
// memory store cannot express (a count above the limit, counts kept under
// another identity).
type plainStore struct {
	mu    sync.Mutex
	cells map[string]*plainCell

	// id names the cell of key under p; nil is key, Name, Window and
	// Algorithm, escaped so that no two differ only in where one ends.
	id func(key string, p core.Policy) string
	// chargeDenied, when it holds for a policy, charges it even when a
	// policy denies (a sliding log then records denied requests).
	chargeDenied func(p core.Policy) bool
	// chargeAllowing charges, on a denial, the policies that allowed.
	chargeAllowing bool
	// truncateEstimate admits by the sliding counter's estimate rounded
	// down to a whole unit.
	truncateEstimate bool
	// logCap, when positive, keeps only the newest logCap requests of a
	// sliding log.
	logCap int
	// shift, when set, moves the instant of a fixed window or sliding
	// counter of window w by shift(w) ms: its windows are aligned elsewhere
	// than on the Unix epoch.
	shift func(w int64) int64
	// ceilCounters rounds a fixed window's or sliding counter's instant
	// up to the next millisecond.
	ceilCounters bool
	// peekRewrites, when set, makes Peek write back the counters it read,
	// after running with the mutex released.
	peekRewrites func()
	// peekWritesBack keeps the state a Peek moved to its instant, as a
	// Take does.
	peekWritesBack bool
	// pause, when set, runs between the decision and the charge, with the
	// mutex released: the check and the charge are no longer atomic.
	pause func()
	// pauseAtRollover pauses only a call that moved a fixed window or a
	// sliding counter with counts to a later window.
	pauseAtRollover bool
	// pauseOnePolicy pauses only a call with one policy.
	pauseOnePolicy bool
	// pauseNewInstant pauses only a call at another millisecond than the
	// store's previous call, in the same window, with no sliding log.
	pauseNewInstant bool
	last            int64
}

type plainCell struct {
	fixed   algo.FixedWindowState
	sliding algo.SlidingWindowState
	log     algo.SlidingLogState
	// admitted are the requests the log holds, for logCap.
	admitted []logCharge
}

type logCharge struct{ now, at, cost int64 }

func newPlain() *plainStore { return &plainStore{cells: map[string]*plainCell{}} }

func (s *plainStore) cellID(key string, p core.Policy) string {
	if s.id != nil {
		return s.id(key, p)
	}
	return strconv.Quote(key) + strconv.Quote(p.Name) + fmt.Sprint(p.Window.Milliseconds(), p.Algorithm)
}

func (s *plainStore) Take(_ context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
	return s.decide(key, ps, cost, now, true)
}

func (s *plainStore) Peek(_ context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
	return s.decide(key, ps, cost, now, false)
}

func (s *plainStore) Reset(_ context.Context, key string, ps []core.Policy) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range ps {
		delete(s.cells, s.cellID(key, p))
	}
	return nil
}

func (s *plainStore) decide(key string, ps []core.Policy, cost int64, t time.Time, charge bool) (core.Result, error) {
	var r core.Result
	if err := callcheck.Check(ps, cost); err != nil {
		return r, err
	}
	now, up := t.UnixMilli(), t.UnixMilli()
	if t.Nanosecond()%int(time.Millisecond) != 0 {
		up++
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cells := make([]*plainCell, len(ps))
	all, rolled := true, false
	for i, p := range ps {
		id := s.cellID(key, p)
		c := s.cells[id]
		if c == nil {
			c = &plainCell{}
			s.cells[id] = c
		}
		cells[i] = c
		lim, w := p.Limit, p.Window.Milliseconds()
		now := s.instant(now, up, p)
		switch p.Algorithm {
		case core.FixedWindow:
			old := c.fixed
			var st algo.FixedWindowState
			st, r.States[i] = c.fixed.Eval(now, lim, w, cost)
			if charge || s.peekWritesBack {
				c.fixed = st
			}
			rolled = rolled || old.Count > 0 && st.Start > old.Start
		case core.SlidingLog:
			r.States[i] = c.log.Eval(now, up, lim, w, cost)
		default:
			old := c.sliding
			var st algo.SlidingWindowState
			st, r.States[i] = c.sliding.Eval(now, lim, w, cost)
			if charge || s.peekWritesBack {
				c.sliding = st
			}
			rolled = rolled || old.Curr+old.Prev > 0 && st.Start > old.Start
			t := max(now, st.Start)
			if s.truncateEstimate && !r.States[i].Allowed && st.Prev*(w-(t-st.Start))/w+st.Curr+cost <= lim {
				r.States[i] = core.PolicyState{Allowed: true, Remaining: r.States[i].Remaining, ResetAfter: r.States[i].ResetAfter}
			}
		}
		all = all && r.States[i].Allowed
	}
	if !charge {
		if s.peekRewrites != nil {
			// Read, then write back what was read: a lost update.
			type saved struct {
				fixed   algo.FixedWindowState
				sliding algo.SlidingWindowState
			}
			read := make([]saved, len(cells))
			for i, c := range cells {
				read[i] = saved{c.fixed, c.sliding}
			}
			s.mu.Unlock()
			s.peekRewrites()
			s.mu.Lock()
			for i, c := range cells {
				c.fixed, c.sliding = read[i].fixed, read[i].sliding
			}
		}
		return r, nil
	}
	moved := s.last != 0 && now != s.last && !rolled
	for _, p := range ps {
		moved = moved && p.Algorithm != core.SlidingLog
	}
	s.last = now
	if s.pause != nil && (rolled || !s.pauseAtRollover) && (len(ps) == 1 || !s.pauseOnePolicy) && (moved || !s.pauseNewInstant) {
		s.mu.Unlock()
		s.pause()
		s.mu.Lock()
	}
	for i, p := range ps {
		switch {
		case all, s.chargeDenied != nil && s.chargeDenied(p), s.chargeAllowing && r.States[i].Allowed:
		default:
			continue
		}
		c, lim, w := cells[i], p.Limit, p.Window.Milliseconds()
		now := s.instant(now, up, p)
		var st core.PolicyState
		switch p.Algorithm {
		case core.FixedWindow:
			c.fixed, st = c.fixed.Charge(now, lim, w, cost)
		case core.SlidingLog:
			st = c.log.Charge(now, up, lim, w, cost)
			if s.logCap > 0 {
				st = c.capLog(s.logCap, now, up, lim, w, cost)
			}
		default:
			c.sliding, st = c.sliding.Charge(now, lim, w, cost)
		}
		if all {
			r.States[i] = st
		}
	}
	return r, nil
}

// capLog records a charge the log took and, when it holds more than max
// requests, rebuilds it from the newest max alone.
func (c *plainCell) capLog(max int, now, at, limit, window, cost int64) core.PolicyState {
	kept := c.admitted[:0]
	for _, a := range c.admitted {
		if a.at > now-window {
			kept = append(kept, a)
		}
	}
	c.admitted = append(kept, logCharge{now, at, cost})
	if len(c.admitted) > max {
		c.admitted = c.admitted[len(c.admitted)-max:]
	}
	var st core.PolicyState
	c.log = algo.SlidingLogState{}
	for _, a := range c.admitted {
		st = c.log.Charge(a.now, a.at, limit, window, a.cost)
	}
	return st
}

// instant is the instant the state of p is evaluated at, with shift and
// ceilCounters; now and up are the call's rounded down and up.
func (s *plainStore) instant(now, up int64, p core.Policy) int64 {
	switch {
	case p.Algorithm == core.SlidingLog:
		return now
	case s.ceilCounters:
		return up
	case s.shift != nil:
		return now + s.shift(p.Window.Milliseconds())
	}
	return now
}
