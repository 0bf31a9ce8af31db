package core

// FixedWindowState is one fixed-window counter: Count units charged in the
// epoch-aligned window that starts at Start (Unix milliseconds).
//
// The algorithm: windows are [k·W, (k+1)·W). A request of cost c is allowed
// while Count + c ≤ L. A denied request may retry when the window ends; the
// quota is whole again at the same instant.
type FixedWindowState struct {
	Start int64
	Count int64
}

// Eval moves s to the window holding now and reports whether cost more units
// fit under limit. It charges nothing. Time never runs backward: a now
// before s.Start is taken as s.Start. The returned PolicyState describes the
// state as it is (Remaining before any charge).
func (s FixedWindowState) Eval(now, limit, window, cost int64) (FixedWindowState, PolicyState) {
	if start := windowFrom(s.Start, now, window); start > s.Start {
		s = FixedWindowState{Start: start}
	}
	now = max(now, s.Start)
	ps := s.report(now, limit, window)
	ps.Allowed = s.Count+cost <= limit
	if !ps.Allowed {
		ps.RetryAfter = millis(s.Start + window - now)
	}
	return s, ps
}

// Charge adds cost to a state returned by Eval for the same now and reports
// the state after the charge.
func (s FixedWindowState) Charge(now, limit, window, cost int64) (FixedWindowState, PolicyState) {
	s.Count += cost
	ps := s.report(max(now, s.Start), limit, window)
	ps.Allowed = true
	return s, ps
}

// Take is Eval followed, when the request is allowed, by Charge, in one
// step: the state after it and what Charge (or, on a denial, Eval) reports.
func (s FixedWindowState) Take(now, limit, window, cost int64) (FixedWindowState, PolicyState) {
	if start := windowFrom(s.Start, now, window); start > s.Start {
		s = FixedWindowState{Start: start}
	}
	now = max(now, s.Start)
	if s.Count+cost > limit {
		ps := s.report(now, limit, window)
		ps.RetryAfter = millis(s.Start + window - now)
		return s, ps
	}
	s.Count += cost
	ps := s.report(now, limit, window)
	ps.Allowed = true
	return s, ps
}

func (s FixedWindowState) report(now, limit, window int64) PolicyState {
	var ps PolicyState
	ps.Remaining = max(0, limit-s.Count)
	if s.Count > 0 {
		ps.ResetAfter = millis(s.Start + window - now)
	}
	return ps
}

// Expired reports whether s holds nothing at now: its window has ended.
func (s FixedWindowState) Expired(now, window int64) bool { return s.Start+window <= now }
