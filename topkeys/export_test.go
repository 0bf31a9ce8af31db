package topkeys

import "github.com/ratewindow/ratewindow/internal/keyhash"

// HashKey is hashKey, for the external tests.
var HashKey = keyhash.Hash

// Len returns the number of tracked items, at most the capacity.
func (s *Summary) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.heap)
}
