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

// Entry and Report are the snapshot types, for the external tests.
type (
	Entry  = row
	Report = snapshot
)

// Top is top, for the external tests.
func (s *Summary) Top(n int, keep func(route, policy string) bool) Report { return s.top(n, keep) }
