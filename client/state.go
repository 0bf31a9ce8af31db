package client

import (
	"sync"
	"time"
)

// state is what the transport knows of one key's quota. It is shared by
// every request with that key.
type state struct {
	mu sync.Mutex
	// known: remaining and resetAt come from a response.
	known     bool
	remaining int64
	resetAt   time.Time
	// blockedUntil is set by a 429 or 503 with Retry-After: no request
	// with this key is sent before it.
	blockedUntil time.Time
}

// reserve takes one unit of the known quota, or reports how long to wait
// before asking again. Once resetAt passes the quota is unknown again and
// requests go through until a response says more.
func (s *state) reserve(now time.Time) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	if now.Before(s.blockedUntil) {
		return s.blockedUntil.Sub(now)
	}
	if !s.known {
		return 0
	}
	if !now.Before(s.resetAt) {
		s.known = false
		return 0
	}
	if s.remaining <= 0 {
		return s.resetAt.Sub(now)
	}
	s.remaining--
	return 0
}

// update records what a response received at now said.
func (s *state) update(q quota, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.known = true
	s.remaining = q.remaining
	s.resetAt = now.Add(q.reset)
}

// block holds every request with this key back until now+d.
func (s *state) block(now time.Time, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if until := now.Add(d); until.After(s.blockedUntil) {
		s.blockedUntil = until
	}
}

// states maps keys to their state. Entries are never removed: a client
// talks to a bounded set of hosts (or keys of the caller's choosing).
type states struct{ m sync.Map }

func (ss *states) get(key string) *state {
	if s, ok := ss.m.Load(key); ok {
		return s.(*state)
	}
	s, _ := ss.m.LoadOrStore(key, &state{})
	return s.(*state)
}
