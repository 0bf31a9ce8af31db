package client

import (
	"sync"
	"sync/atomic"
	"time"
)

// state is what the transport knows of one key's quota. It is shared by
// every request with that key.
type state struct {
	// used is when a request last took this state, in Unix nanoseconds.
	used atomic.Int64

	mu sync.Mutex
	// known: remaining and resetAt come from a response.
	known     bool
	remaining int64
	resetAt   time.Time
	// blockedUntil is set by a 429 or 503, for its Retry-After or a
	// back-off: no request with this key is sent before it.
	blockedUntil time.Time
	// backoffs counts the refusals in a row that said nothing of when to
	// come back, each of which doubled the back-off (see backOff).
	backoffs int
	// inflight counts the requests with this key sent and not answered
	// yet; reads counts the responses whose fields were read. taken
	// counts the requests that reserve has let go and that are not sent
	// yet: they count as in flight, so a response read in between does
	// not give their units back.
	inflight int64
	taken    int64
	reads    uint64
	// probe is open while one request goes ahead of the others to learn
	// what a used-up quota holds after its reset: the others hold until
	// it is closed, by that request's answer, or until probeUntil (on the
	// real clock, as the holds' timers are).
	probe      chan struct{}
	probeUntil time.Time
	// holders counts the requests that hold this state, from states.get
	// until their RoundTrip returns: the sweep never drops a held state.
	// dropped is set by the sweep that removes it from the map.
	holders int64
	dropped bool
}

// ticket is what reserve tells a request: go now (the zero ticket), go
// now as the probe, wait, or hold until the probe is answered.
type ticket struct {
	wait  time.Duration
	probe chan struct{} // this request is the probe
	hold  chan struct{} // the probe to wait for, at most until until
	until time.Time
}

// reserve takes one unit of the known quota, or tells the request to
// wait, or to go ahead as the probe, or to hold until the probe is
// answered; now is on the transport's clock, probeWait bounds a probe.
//
// Once resetAt passes, the units left are still there (a reset only
// brings more) and are taken; when none are left, how many the reset
// brought is unknown: a server need not restore the whole quota (a
// sliding window frees it gradually, and after a denial's reset there
// may be room for just one request). So one request goes first and the
// others wait for its answer, rather than all going at once into a 429.
// A block counts as a used-up quota that resets when the block ends.
func (s *state) reserve(now time.Time, probeWait time.Duration) ticket {
	s.mu.Lock()
	defer s.mu.Unlock()
	if now.Before(s.blockedUntil) {
		return ticket{wait: s.blockedUntil.Sub(now)}
	}
	if s.probe != nil {
		if time.Now().Before(s.probeUntil) {
			return ticket{hold: s.probe, until: s.probeUntil}
		}
		// The probe is overdue: its answer may be long in coming, or
		// never come. This request goes ahead in its place, as after a
		// probe that failed, and the others hold for it in turn: one
		// request a probe wait, not all at once.
		s.endProbe()
		return s.startProbe(probeWait)
	}
	if !s.known {
		s.taken++
		return ticket{}
	}
	if s.remaining > 0 {
		s.remaining--
		s.taken++
		return ticket{}
	}
	if now.Before(s.resetAt) {
		return ticket{wait: s.resetAt.Sub(now)}
	}
	return s.startProbe(probeWait)
}

// startProbe lets one request go ahead of the others with this key. The
// caller holds mu.
func (s *state) startProbe(probeWait time.Duration) ticket {
	s.taken++
	s.probe = make(chan struct{})
	s.probeUntil = time.Now().Add(probeWait)
	return ticket{probe: s.probe}
}

// endProbe releases the requests holding for the probe.
func (s *state) endProbe() {
	close(s.probe)
	s.probe = nil
}

// resetMargin is added to every announced reset. Servers count time in
// milliseconds and may round a reset down by that much: ratewindow's own
// forgives its stores' millisecond on an allowed response, documenting that
// a client that waits t plus a millisecond is never refused. Without the
// margin a request sent exactly t after a response can arrive that
// millisecond early, and earn a 429 whose Retry-After is a whole second.
const resetMargin = time.Millisecond

// sent records a request with this key about to be sent. It returns what
// done needs to know of the moment: how many responses had been read.
// A request that reserve let go was counted then, as taken: it moves to
// in flight. (Which request a taken unit is counted for does not matter:
// one sent without being let go, its wait skipped, moves it early, and the
// one let go is then counted anew.)
func (s *state) sent() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inflight++
	if s.taken > 0 {
		s.taken--
	}
	return s.reads
}

// done records the response to a request sent when reads responses had
// been read (a probe, when probe is not nil): received at now, it said
// q (when ok), and refused the request (a 429 or 503) or not.
//
// The server counted the requests it answered before this one, not those
// still on their way to it: the quota the transport keeps is q less the
// other requests with this key still in flight, or let go and about to be. If another response was
// read since this request was sent, the two crossed on the way and either
// may be the newer: q then only ever lowers the count.
func (s *state) done(q quota, ok bool, now time.Time, reads uint64, probe chan struct{}, refused bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inflight--
	if !refused {
		s.backoffs = 0
	}
	// A probe that went overdue was replaced, but its answer, read
	// before any other since it was sent, says what the reset brought
	// as well as its replacement's would: it ends the hold too. (Against
	// a server slower than the probe wait, every probe is replaced before
	// its answer comes; were the answers only read, the key would send
	// one request a probe wait for ever, whatever they said.)
	if probe != nil && s.probe != nil && (probe == s.probe || s.reads == reads) {
		s.endProbe()
		if !ok && !now.Before(s.blockedUntil) {
			// The server says nothing of its limit: requests go
			// through until a response says more. (A refusal has
			// blocked the key first, and the first request after the
			// block goes ahead of the others.)
			s.known = false
		}
	}
	if !ok {
		return
	}
	crossed := s.reads != reads
	s.reads++
	remaining := max(q.remaining-s.inflight-s.taken, 0)
	if crossed && s.known && now.Before(s.resetAt) && s.remaining <= remaining {
		return
	}
	s.known = true
	s.remaining = remaining
	s.resetAt = now.Add(q.reset).Add(resetMargin)
}

// failed records a request that got no response (the probe, when probe is
// not nil): the quota is as unknown as before, and the next request goes
// ahead in the probe's place.
func (s *state) failed(probe chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inflight--
	if probe != nil && probe == s.probe {
		s.endProbe()
	}
}

// block holds every request with this key back until now+d. The server
// refused: unless the response's own fields say more, nothing is left
// until the block ends, and the first request sent after it goes ahead of
// the others.
func (s *state) block(now time.Time, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.blockUntil(now.Add(d))
}

// blockUntil holds every request with this key back until until, unless
// a block in place ends later: the quota counts as used up until the
// block ends. The caller holds mu.
func (s *state) blockUntil(until time.Time) {
	if until.After(s.blockedUntil) {
		s.blockedUntil = until
	}
	s.known = true
	s.remaining = 0
	s.resetAt = s.blockedUntil
}

// backOff holds every request with this key back after a refusal, at now,
// that said neither when to come back (no Retry-After) nor when the quota
// resets, and returns how long the refused request is to wait before it
// is sent again. The server is refusing and will not say for how long:
// sending the key's other requests at once would only earn more refusals.
// So the back-off is backoffBase, doubled for each such refusal in a row,
// at most backoffLimit; the key is held back for it, or for limit when
// that is shorter, and then one request goes first, as after any block.
// The refused request's own retry waits the whole back-off (a MaxWait
// shorter than it stops the retry instead: clamped, it would send the
// retries at MaxWait's pace into a server that keeps refusing). A refusal
// that arrives while the key is blocked (its request crossed the one that
// blocked it) says nothing new: it waits out the block, and does not
// double it. One that arrives after the block doubles it, though its
// request may have been sent before: what is known is when it arrived.
// Any response that is not a refusal ends the run.
func (s *state) backOff(now time.Time, limit time.Duration) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	if now.Before(s.blockedUntil) {
		return s.blockedUntil.Sub(now)
	}
	d := min(backoffBase<<min(s.backoffs, maxDoublings), backoffLimit)
	if s.backoffs < maxDoublings {
		s.backoffs++
	}
	s.blockUntil(now.Add(min(d, limit))) // any block in place has ended
	return d
}

// The back-off after a refusal that says nothing of when to come back
// starts at backoffBase and doubles, up to backoffLimit. The key is held
// back for at most MaxWait of it, so that its paced requests wait the block
// out rather than find it too long to wait for and go at once.
// maxDoublings keeps the shift from overflowing.
const (
	backoffBase  = 500 * time.Millisecond
	backoffLimit = 30 * time.Second
	maxDoublings = 16
)

// Forgetting keys. A transport may talk to any number of hosts (a crawler,
// a webhook sender) or keys of the caller's choosing, so states that hold
// nothing are dropped: once the map has grown to sweepAt entries, each is
// checked, and one that no request holds (none waits its turn or its
// answer) and that was unused for idleAfter whose reset and block have
// passed (a fresh state would behave the same), or unused for staleAfter
// whatever it holds, is removed. The next sweep waits until the map has
// doubled from what was kept, so the cost per new key stays constant, or,
// for a map of minSweepAt entries or more, until idleAfter has passed since
// the last sweep, which any request checks, to a known key or a new one:
// the states of a burst of keys that has ended are dropped even if no new
// key comes, or too few to double the map. The held states kept are at
// most as many as the requests under way.
const (
	minSweepAt = 1024
	idleAfter  = time.Minute
	staleAfter = time.Hour
)

// states maps keys to their state.
type states struct {
	m       sync.Map
	size    atomic.Int64 // entries in m
	sweepAt atomic.Int64 // size at which the next sweep runs; 0 means minSweepAt
	sweepMu sync.Mutex   // one sweep at a time
	swept   atomic.Int64 // when the last sweep ran, Unix nanoseconds
}

// get returns key's state, held for the caller until it calls release:
// a request in flight for longer than idleAfter, or that waited that long
// for its turn, still finds its answer heard, and itself counted, by the
// requests with its key that follow.
func (ss *states) get(key string, now time.Time) *state {
	for {
		if v, ok := ss.m.Load(key); ok {
			if s := v.(*state); s.hold(now) {
				ss.sweepIfIdle(now)
				return s
			}
			continue // a sweep has just removed it from the map
		}
		fresh := &state{holders: 1}
		fresh.used.Store(now.UnixNano())
		v, loaded := ss.m.LoadOrStore(key, fresh)
		if !loaded {
			if n := ss.size.Add(1); n >= max(ss.sweepAt.Load(), minSweepAt) {
				ss.sweep(now)
			} else {
				// A new key after a burst that has ended: the
				// burst is forgotten though the map will not
				// double again soon.
				ss.sweepIfIdle(now)
			}
			return fresh
		}
		if s := v.(*state); s.hold(now) {
			return s
		}
	}
}

// hold marks s used by one more request at now, unless a sweep has
// dropped it.
func (s *state) hold(now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dropped {
		return false
	}
	s.holders++
	s.used.Store(now.UnixNano())
	return true
}

// release ends, at now, the hold a request took with states.get. The
// state counts as used then: the answer the request brought back is as
// fresh as now, however long the request took.
func (s *state) release(now time.Time) {
	s.mu.Lock()
	s.holders--
	s.used.Store(now.UnixNano())
	s.mu.Unlock()
}

// sweepIfIdle sweeps a map of at least minSweepAt entries that no sweep
// has looked at for idleAfter (or since a clock that stepped back).
func (ss *states) sweepIfIdle(now time.Time) {
	if ss.size.Load() < minSweepAt {
		return
	}
	if d := now.UnixNano() - ss.swept.Load(); d >= 0 && d < int64(idleAfter) {
		return
	}
	ss.sweep(now)
}

// sweep removes the states that hold nothing worth keeping.
func (ss *states) sweep(now time.Time) {
	if !ss.sweepMu.TryLock() {
		return // another goroutine is sweeping
	}
	defer ss.sweepMu.Unlock()
	ss.swept.Store(now.UnixNano())
	ss.m.Range(func(k, v any) bool {
		if ss.drop(k, v.(*state), now) {
			ss.size.Add(-1)
		}
		return true
	})
	ss.sweepAt.Store(2 * ss.size.Load())
}

// drop removes s, the state of key k, if it can be forgotten at now, and
// reports whether it did. A state used within idleAfter is kept without
// taking its lock. The removal happens under the state's lock, so a
// request either holds it first, and it is kept, or finds it dropped,
// and takes the key's new state.
func (ss *states) drop(k any, s *state, now time.Time) bool {
	unused := now.Sub(time.Unix(0, s.used.Load()))
	if unused < idleAfter {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.holders > 0 {
		return false
	}
	if unused < staleAfter && (now.Before(s.blockedUntil) || (s.known && now.Before(s.resetAt))) {
		return false
	}
	if !ss.m.CompareAndDelete(k, s) {
		return false
	}
	s.dropped = true
	return true
}
