package core

// SlidingLogState is one exact sliding-window log: the timestamps (Unix
// milliseconds) of every allowed unit of cost, oldest first, in a ring
// buffer. Denied requests are never recorded, so it never holds more than
// the limit, and the buffer grows only as far as it is used (8 bytes per
// timestamp).
//
// A unit charged at t counts while it lies in the rolling window
// (now − W, now]. A request of cost c is allowed while count + c ≤ L. When
// denied, it may retry once the (count + c − L)-th oldest unit has left the
// window.
//
// The zero value is an empty log. A SlidingLogState is not safe for concurrent
// use; stores guard it.
type SlidingLogState struct {
	buf  []int64
	head int // index of the oldest entry
	n    int // number of entries
}

// Len returns how many timestamps the log holds.
func (l *SlidingLogState) Len() int { return l.n }

// Cap returns the capacity of the log's buffer, in timestamps.
func (l *SlidingLogState) Cap() int { return len(l.buf) }

func (l *SlidingLogState) at(i int) int64 {
	j := l.head + i
	if j >= len(l.buf) {
		j -= len(l.buf)
	}
	return l.buf[j]
}

func (l *SlidingLogState) newest() int64 { return l.at(l.n - 1) }

// clamp returns now, or the newest timestamp if time ran backward.
func (l *SlidingLogState) clamp(now int64) int64 {
	if l.n > 0 {
		return max(now, l.newest())
	}
	return now
}

// prune drops the timestamps that left the window (t ≤ now − W).
func (l *SlidingLogState) prune(now, window int64) {
	for l.n > 0 && l.buf[l.head] <= now-window {
		l.head++
		if l.head == len(l.buf) {
			l.head = 0
		}
		l.n--
	}
	if l.n == 0 {
		l.head = 0
	}
}

// Eval prunes the log at now and reports whether cost more units fit under
// limit. It charges nothing.
func (l *SlidingLogState) Eval(now, limit, window, cost int64) PolicyState {
	now = l.clamp(now)
	l.prune(now, window)
	ps := l.report(now, limit, window)
	count := int64(l.n)
	ps.Allowed = count+cost <= limit
	if !ps.Allowed {
		if j := count + cost - limit; j <= count {
			ps.RetryAfter = millis(l.at(int(j-1)) + window - now)
		} else {
			// Only when the limit was lowered below the cost in flight:
			// everything must leave the window first.
			ps.RetryAfter = millis(l.newest() + window - now)
		}
	}
	return ps
}

// Charge records cost units at now, after an Eval at the same now that
// allowed them, and reports the state after the charge.
func (l *SlidingLogState) Charge(now, limit, window, cost int64) PolicyState {
	now = l.clamp(now)
	l.grow(l.n+int(cost), int(limit))
	for i := int64(0); i < cost; i++ {
		j := l.head + l.n
		if j >= len(l.buf) {
			j -= len(l.buf)
		}
		l.buf[j] = now
		l.n++
	}
	ps := l.report(now, limit, window)
	ps.Allowed = true
	return ps
}

// Expired reports whether the log holds nothing at now.
func (l *SlidingLogState) Expired(now, window int64) bool {
	return l.n == 0 || l.newest() <= now-window
}

// grow makes room for need entries, doubling but never past max(limit, need).
func (l *SlidingLogState) grow(need, limit int) {
	if need <= len(l.buf) {
		return
	}
	c := max(2*len(l.buf), 4)
	c = min(c, max(limit, need))
	c = max(c, need)
	buf := make([]int64, c)
	for i := 0; i < l.n; i++ {
		buf[i] = l.at(i)
	}
	l.buf, l.head = buf, 0
}

func (l *SlidingLogState) report(now, limit, window int64) PolicyState {
	var ps PolicyState
	ps.Remaining = max(0, limit-int64(l.n))
	if l.n > 0 {
		ps.ResetAfter = millis(l.newest() + window - now)
	}
	return ps
}
