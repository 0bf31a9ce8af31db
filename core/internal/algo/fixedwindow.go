package algo

import "github.com/ratewindow/ratewindow/core"

// FixedWindowState is one fixed-window counter: Count units charged in the
// epoch-aligned window that starts at Start (Unix milliseconds).
//
// The algorithm: windows are [k·W, (k+1)·W). A request of cost c is allowed
// while Count + c ≤ L. A denied request may retry when the window ends; the
// quota is whole again at the same instant.
//
// Clock steps: a now in the window before Start still counts against
// Start's window, with RetryAfter measured from now (so it is honest on the
// stepped clock). A now more than a window before Start (the clock stepped
// back further) moves the count to now's window: the key recovers within a
// window rather than when the clock reaches Start again.
type FixedWindowState struct {
	Start int64
	Count int64
}

// Eval moves s to the window holding now and reports whether cost more units
// fit under limit. It charges nothing. The returned core.PolicyState describes
// the state as it is (Remaining before any charge).
func (s FixedWindowState) Eval(now, limit, window, cost int64) (FixedWindowState, core.PolicyState) {
	s = s.advance(now, window)
	ps := s.report(now, limit, window)
	ps.Allowed = s.Count+cost <= limit
	if !ps.Allowed {
		ps.RetryAfter = millis(s.Start + window - now)
	}
	return s, ps
}

// Charge adds cost to a state returned by Eval for the same now and reports
// the state after the charge.
func (s FixedWindowState) Charge(now, limit, window, cost int64) (FixedWindowState, core.PolicyState) {
	s.Count += cost
	ps := s.report(now, limit, window)
	ps.Allowed = true
	return s, ps
}

// Take is Eval followed, when the request is allowed, by Charge, in one
// step: the state after it and what Charge (or, on a denial, Eval) reports.
func (s FixedWindowState) Take(now, limit, window, cost int64) (FixedWindowState, core.PolicyState) {
	s = s.advance(now, window)
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

// advance moves s to the window holding now: a later window starts empty;
// a window more than one before s's keeps s's count (see the type's doc).
func (s FixedWindowState) advance(now, window int64) FixedWindowState {
	switch {
	case now >= s.Start+window:
		return FixedWindowState{Start: windowStart(now, window)}
	case now < s.Start-window:
		s.Start = windowStart(now, window)
	}
	return s
}

func (s FixedWindowState) report(now, limit, window int64) core.PolicyState {
	var ps core.PolicyState
	ps.Remaining = max(0, limit-s.Count)
	if s.Count > 0 {
		ps.ResetAfter = millis(s.Start + window - now)
	}
	return ps
}

// Expired reports whether s holds nothing that counts at now or later: its
// window has ended. A state in the future is not expired: the clock
// stepped back, and the next Eval moves its count to now (see the type's
// doc).
func (s FixedWindowState) Expired(now, window int64) bool {
	return s.Start+window <= now
}
