package topkeys

// HashKey is hashKey, for the external tests.
var HashKey = hashKey

// Len returns the number of tracked items, at most the capacity.
func (s *Summary) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.heap)
}
