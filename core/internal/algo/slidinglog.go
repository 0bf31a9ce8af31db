package algo

import "github.com/ratewindow/ratewindow/core"

// SlidingLogState is one exact sliding-window log: one record per admitted
// request (not per unit of cost), oldest first, in a ring buffer. A record
// holds the request's instant (Unix milliseconds, rounded up) and the
// running total of the units admitted up to and including it, so a record
// costs 16 bytes whatever the request's weight, and the count in the window
// and the wait for a denied request are read off the totals.
//
// A request admitted at t counts while it lies in the rolling window
// (now − W, now]. A request of cost c is allowed while count + c ≤ L. When
// denied, it may retry once the oldest records holding count + c − L units
// have left the window.
//
// Exact in real time: an admission instant is rounded up to the next whole
// millisecond and now is rounded down, so a request admitted at the real
// instant r leaves the window no earlier than r + W. Requests admitted in
// the same millisecond share one record.
//
// Records leave the log only when a request is admitted (Charge drops
// those out of the window at its now) or when the log is rebased; Eval
// skips them without dropping them. So the log holds exactly the records
// that counted at its last admission (or rebase), whatever Evals, denied
// or not, came after.
//
// Memory: the log holds at most one record per request admitted within a
// window of its last admission, so never more than L records, and never
// more than one per millisecond of the window (W/1ms + 1): 16 bytes each.
// Its buffer grows by doubling up to that bound and shrinks to half when a
// quarter or less of it is used. Denied requests are never recorded. Work
// per request is O(log n) in the records held (a binary search when denied
// or when records left the window since the last admission), and dropping
// records is amortised over the admitted requests.
//
// Clock steps: a request at an earlier time than the newest record is
// recorded at the newest record's instant, so the log stays sorted. When
// the newest record lies more than a window after now (the clock stepped
// back by more than a window), the log is rebased: the units of every
// record it holds (those that counted at its last admission) are kept in
// one record at now (rounded up, as an admission is), so the key recovers
// one window later instead of when the clock reaches the old records
// again. Nothing that counted at the
// last admission is forgotten, and what is kept counts for a full window
// from now, so across the step the log still never admits more than L
// within W of real time.
//
// The zero value is an empty log. A SlidingLogState is not safe for
// concurrent use; stores guard it.
type SlidingLogState struct {
	buf  []logRecord
	head int   // index of the oldest record
	n    int   // number of records
	base int64 // the running total before the oldest record
}

// logRecord is one admitted request (or several in one millisecond).
type logRecord struct {
	t   int64 // instant, Unix ms, rounded up
	sum int64 // units admitted by this record and every one before it
}

// minLogCap is the smallest buffer a log allocates.
const minLogCap = 4

// maxLogSum bounds the running totals; past it they are renumbered from
// zero (see renumber). It keeps them exact in a double too, as the Redis
// script holds them.
const maxLogSum = 1 << 52

// Len returns how many records the log holds.
func (l *SlidingLogState) Len() int { return l.n }

// Cap returns the capacity of the log's buffer, in records.
func (l *SlidingLogState) Cap() int { return len(l.buf) }

// Count returns the units the log holds, those out of the window not yet
// dropped included.
func (l *SlidingLogState) Count() int64 {
	if l.n == 0 {
		return 0
	}
	return l.newest().sum - l.base
}

func (l *SlidingLogState) at(i int) *logRecord {
	j := l.head + i
	if j >= len(l.buf) {
		j -= len(l.buf)
	}
	return &l.buf[j]
}

func (l *SlidingLogState) newest() *logRecord { return l.at(l.n - 1) }

// rebase moves a log more than a window in the future (the clock stepped
// back by more than a window) to now: every record it holds is kept, in
// one record at the instant at (now rounded up). Dated like an admission
// at the call's real instant, what is kept counts for at least a full
// window of real time from then.
func (l *SlidingLogState) rebase(now, at, window int64) {
	if l.n > 0 && l.newest().t > now+window {
		count := l.Count()
		l.head, l.n, l.base = 0, 1, 0
		l.buf[0] = logRecord{t: at, sum: count}
		l.shrink()
	}
}

// firstIn returns the index of the oldest record still in the window at
// now (t > now − W), or n when none is. The records that left it stay
// until a charge prunes them.
func (l *SlidingLogState) firstIn(now, window int64) int {
	edge := now - window
	if l.n == 0 || l.buf[l.head].t > edge {
		return 0 // the common case: nothing left since the last charge
	}
	lo, hi := 1, l.n
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if l.at(mid).t > edge {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// before returns the running total before the record at index i.
func (l *SlidingLogState) before(i int) int64 {
	if i == 0 {
		return l.base
	}
	return l.at(i - 1).sum
}

// drop drops the k oldest records (those that left the window, as firstIn
// counts them) and shrinks the buffer when it is mostly empty.
func (l *SlidingLogState) drop(k int) {
	if k > 0 {
		l.base = l.at(k - 1).sum
		if l.head += k; l.head >= len(l.buf) {
			l.head -= len(l.buf)
		}
		l.n -= k
	}
	if l.n == 0 {
		l.head, l.base = 0, 0
	}
	l.shrink()
}

// shrink halves the buffer when a quarter or less of it is used.
func (l *SlidingLogState) shrink() {
	if len(l.buf) > minLogCap && 4*l.n <= len(l.buf) {
		l.resize(max(minLogCap, len(l.buf)/2))
	}
}

// Eval reports whether cost more units fit under limit at now (Unix
// milliseconds rounded down; up is the same instant rounded up). It charges
// nothing, and changes the log only to rebase it (see the type's doc): the
// records that left the window are skipped, not dropped, so what a later
// rebase keeps does not depend on the Evals in between.
func (l *SlidingLogState) Eval(now, up, limit, window, cost int64) core.PolicyState {
	l.rebase(now, up, window)
	first := l.firstIn(now, window)
	return l.eval(now, limit, window, cost, first, l.countFrom(first))
}

// Take is Eval followed, when it allows, by Charge at the instant at (Unix
// milliseconds rounded up; at ≥ now): it changes the log and reports the
// same as those two calls, in one pass over the window.
func (l *SlidingLogState) Take(now, at, limit, window, cost int64) core.PolicyState {
	l.rebase(now, at, window)
	first := l.firstIn(now, window)
	count := l.countFrom(first)
	if count+cost > limit {
		return l.eval(now, limit, window, cost, first, count)
	}
	l.drop(first)
	return l.record(now, at, limit, window, cost)
}

// countFrom returns the units held by the records from index first on.
func (l *SlidingLogState) countFrom(first int) int64 {
	if first >= l.n {
		return 0
	}
	return l.newest().sum - l.before(first)
}

// eval is Eval's report, given the index of the oldest record in the
// window and the units from it on.
func (l *SlidingLogState) eval(now, limit, window, cost int64, first int, count int64) core.PolicyState {
	var ps core.PolicyState
	if first < l.n {
		ps.ResetAfter = millis(l.newest().t + window - now)
	}
	ps.Remaining = max(0, limit-count)
	ps.Allowed = count+cost <= limit
	if !ps.Allowed {
		at := now // an empty window denies only a cost above the limit
		if first < l.n {
			at = l.freedAt(first, count+cost-limit)
		}
		ps.RetryAfter = millis(at + window - now)
	}
	return ps
}

// freedAt returns the instant of the oldest record whose leaving frees
// need units, counting from the record at index first: the first whose
// running total reaches need more than the total before first, or the
// newest when even all of them do not (a limit lowered below the cost in
// flight).
func (l *SlidingLogState) freedAt(first int, need int64) int64 {
	base := l.before(first)
	lo, hi := first, l.n-1
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if l.at(mid).sum-base >= need {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return l.at(lo).t
}

// Basis returns what Takes at now, recording at the instant at, start
// from: the units in the window at now, and the instant an admission is
// recorded at (at, or the newest record's when later). ok is false when a
// Take at now would first rebase the log. While nothing else changes the
// log, Takes at (now, at) admit while count + the units they admitted +
// cost ≤ limit, and all add to one record at that instant: their whole
// effect is one Charge(now, at, limit, window, units) of the units they
// admitted.
func (l *SlidingLogState) Basis(now, at, window int64) (count, recordAt int64, ok bool) {
	if l.n == 0 {
		return 0, at, true
	}
	newest := l.newest().t
	if newest > now+window {
		return 0, 0, false
	}
	return l.countFrom(l.firstIn(now, window)), max(at, newest), true
}

// Charge records a request of cost units admitted at the instant at (Unix
// milliseconds rounded up; at ≥ now), after an Eval at now that allowed
// it, drops the records that left the window, and reports the state after
// the charge.
func (l *SlidingLogState) Charge(now, at, limit, window, cost int64) core.PolicyState {
	l.drop(l.firstIn(now, window))
	return l.record(now, at, limit, window, cost)
}

// record is Charge once the records out of the window are dropped.
func (l *SlidingLogState) record(now, at, limit, window, cost int64) core.PolicyState {
	if l.n > 0 {
		last := l.newest()
		at = max(at, last.t)
		if last.sum+cost > maxLogSum {
			l.renumber()
		}
		if last.t == at {
			last.sum += cost
			return l.charged(now, limit, window, last)
		}
	}
	if l.n == len(l.buf) {
		// Each record holds a unit or more and a distinct millisecond, so
		// no more than min(limit, window+1) are ever live (unless the limit
		// was lowered): the buffer never grows past that.
		c := int(min(int64(max(minLogCap, 2*len(l.buf))), limit, window+1))
		l.resize(max(c, l.n+1))
	}
	sum := l.base + cost
	if l.n > 0 {
		sum = l.newest().sum + cost
	}
	l.n++
	last := l.newest()
	*last = logRecord{t: at, sum: sum}
	return l.charged(now, limit, window, last)
}

// charged reports the state after a charge at now, given the newest record:
// every record is in the window.
func (l *SlidingLogState) charged(now, limit, window int64, last *logRecord) core.PolicyState {
	return Admitted(now, limit, window, last.sum-l.base, last.t)
}

// Admitted is what a log reports after an admission at now, when the
// window holds count units (the admission's included) and the newest
// record is at the instant newest.
func Admitted(now, limit, window, count, newest int64) core.PolicyState {
	return core.PolicyState{
		Allowed:    true,
		Remaining:  max(0, limit-count),
		ResetAfter: millis(newest + window - now),
	}
}

// renumber restarts the running totals from zero.
func (l *SlidingLogState) renumber() {
	for i := 0; i < l.n; i++ {
		l.at(i).sum -= l.base
	}
	l.base = 0
}

// Expired reports whether the log holds nothing that counts at now or
// later: it is empty, or every record has left the window. A log in the
// future is not expired: the clock stepped back, and the next Eval
// rebases it with its counts.
func (l *SlidingLogState) Expired(now, window int64) bool {
	if l.n == 0 {
		return true
	}
	return l.newest().t <= now-window
}

// resize moves the records to a buffer of c ≥ n records.
func (l *SlidingLogState) resize(c int) {
	buf := make([]logRecord, c)
	for i := 0; i < l.n; i++ {
		buf[i] = *l.at(i)
	}
	l.buf, l.head = buf, 0
}
