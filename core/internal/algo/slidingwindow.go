package algo

import "github.com/ratewindow/ratewindow/core"

// SlidingWindowState is one sliding-window counter: Curr units charged in
// the epoch-aligned bucket that starts at Start (Unix milliseconds) and Prev
// units in the bucket before it.
//
// The algorithm estimates the count over the rolling window (now − W, now]
// by weighting the previous bucket by its overlap with that window:
//
//	estimate = Prev × (W − elapsed)/W + Curr,   elapsed = now − Start
//
// and allows a request of cost c when estimate + c ≤ L. All arithmetic is
// done multiplied through by W, on integers, so it is exact (and the Redis
// Lua script, on doubles below 2^53, agrees bit for bit).
//
// RetryAfter is solved for exactly: while Curr + c ≤ L the estimate falls
// below the limit as the previous bucket slides out, usually well before the
// bucket ends; otherwise the client must wait into the next bucket until the
// (then previous) Curr has decayed enough.
//
// Clock steps: a now up to a window before Start is evaluated as at Start,
// with RetryAfter and ResetAfter measured from now (honest on the stepped
// clock). A now more than a window before Start (the clock stepped back
// further) moves both buckets back to the one holding now, counts kept: the
// key recovers within about a window rather than when the clock reaches
// Start again.
type SlidingWindowState struct {
	Start int64
	Prev  int64
	Curr  int64
}

// Eval moves s to the bucket holding now and reports whether cost more
// units fit under limit. It charges nothing.
func (s SlidingWindowState) Eval(now, limit, window, cost int64) (SlidingWindowState, core.PolicyState) {
	s = s.advance(now, window)
	t := max(now, s.Start)
	ps := s.report(t, limit, window)
	weighted := s.weighted(t, window)
	ps.Allowed = weighted+cost*window <= limit*window
	if !ps.Allowed {
		ps.RetryAfter = millis(s.retryAfter(t, limit, window, cost))
	}
	return s, s.late(ps, t-now)
}

// late adds the gap between now and a later s.Start, when the clock is
// behind the state, to the waits of ps.
func (s SlidingWindowState) late(ps core.PolicyState, gap int64) core.PolicyState {
	if gap > 0 {
		if ps.RetryAfter > 0 {
			ps.RetryAfter += millis(gap)
		}
		if ps.ResetAfter > 0 {
			ps.ResetAfter += millis(gap)
		}
	}
	return ps
}

// Charge adds cost to a state returned by Eval for the same now and reports
// the state after the charge.
func (s SlidingWindowState) Charge(now, limit, window, cost int64) (SlidingWindowState, core.PolicyState) {
	s.Curr += cost
	t := max(now, s.Start)
	ps := s.report(t, limit, window)
	ps.Allowed = true
	return s, s.late(ps, t-now)
}

// Take is Eval followed, when the request is allowed, by Charge, in one
// step: the state after it and what Charge (or, on a denial, Eval) reports.
func (s SlidingWindowState) Take(now, limit, window, cost int64) (SlidingWindowState, core.PolicyState) {
	s = s.advance(now, window)
	if now < s.Start {
		// The clock is behind the state: rare, not worth a fused path.
		s, ps := s.Eval(now, limit, window, cost)
		if ps.Allowed {
			s, ps = s.Charge(now, limit, window, cost)
		}
		return s, ps
	}
	if s.weighted(now, window)+cost*window > limit*window {
		ps := s.report(now, limit, window)
		ps.RetryAfter = millis(s.retryAfter(now, limit, window, cost))
		return s, ps
	}
	// Admitted: report's answer for Curr > 0, written out here because
	// report is too large to inline and this is the hot path.
	s.Curr += cost
	ps := core.PolicyState{Allowed: true, Remaining: max(0, limit-s.Curr), ResetAfter: millis(s.Start + 2*window - now)}
	if s.Prev > 0 {
		ps.Remaining = max(0, (limit*window-s.weighted(now, window))/window)
	}
	return s, ps
}

// Expired reports whether s holds nothing that counts at now or later:
// both buckets are out of the rolling window. A state in the future is not
// expired: the clock stepped back, and the next Eval moves its counts to
// now (see the type's doc).
func (s SlidingWindowState) Expired(now, window int64) bool {
	return s.Start+2*window <= now
}

func (s SlidingWindowState) advance(now, window int64) SlidingWindowState {
	if now < s.Start-window {
		s.Start = windowStart(now, window)
		return s
	}
	start := windowFrom(s.Start, now, window)
	switch {
	case start <= s.Start:
		return s
	case start == s.Start+window:
		return SlidingWindowState{Start: start, Prev: s.Curr}
	default:
		return SlidingWindowState{Start: start}
	}
}

// weighted is the estimate multiplied by window.
func (s SlidingWindowState) weighted(now, window int64) int64 {
	return s.Prev*(window-(now-s.Start)) + s.Curr*window
}

func (s SlidingWindowState) report(now, limit, window int64) core.PolicyState {
	var ps core.PolicyState
	if s.Prev == 0 {
		ps.Remaining = max(0, limit-s.Curr) // the same, without a division
	} else {
		ps.Remaining = max(0, (limit*window-s.weighted(now, window))/window)
	}
	elapsed := now - s.Start
	switch {
	case s.Curr > 0:
		ps.ResetAfter = millis(2*window - elapsed)
	case s.Prev > 0:
		ps.ResetAfter = millis(window - elapsed)
	}
	return ps
}

// retryAfter is the shortest wait in milliseconds after which a lone request
// of cost is allowed. Precondition: it is denied now.
func (s SlidingWindowState) retryAfter(now, limit, window, cost int64) int64 {
	elapsed := now - s.Start
	if room := (limit - s.Curr - cost) * window; room >= 0 && s.Prev > 0 {
		// Still in this bucket: need Prev·(W − elapsed − d) ≤ room.
		return max(0, window-elapsed-room/s.Prev)
	}
	// Next bucket, where Prev becomes Curr: need Curr·(W − e) ≤ (L − c)·W.
	if s.Curr == 0 {
		return window - elapsed
	}
	e := window - (limit-cost)*window/s.Curr
	return window - elapsed + max(0, e)
}
