package resilient

// Names the external tests use for unexported values.
const (
	DefaultFailureThreshold = defaultFailureThreshold
	DefaultOpenInterval     = defaultOpenInterval
	MaxDomains              = maxDomains
	StaleIntervals          = staleIntervals
)

// DomainBreakers returns how many domains have a breaker of their own.
func (s *Store) DomainBreakers() int {
	if s.domains == nil {
		return 0
	}
	return len(*s.domains.byName.Load())
}

// Stats counts what a Store did since it was created.
type Stats struct {
	// PrimaryErrors is the number of calls to the primary store that
	// failed (counted towards opening the breaker, except those of calls
	// admitted before its latest opening, see breaker.record). Successful calls
	// are not counted: a shared counter on the hot path would cost more
	// than the decision; count them on the primary (a go-redis hook) if
	// needed.
	PrimaryErrors int64
	// FastFails is the number of calls the open breaker kept from the
	// primary.
	FastFails int64
	// Fallbacks is the number of decisions made by the local fallback.
	Fallbacks int64
	// DenyCacheHits is the number of decisions answered by the deny cache.
	DenyCacheHits int64
	// DenyCacheEntries is the number of denials the cache holds now.
	DenyCacheEntries int
}

// Stats returns the Store's counters.
func (s *Store) Stats() Stats {
	st := Stats{
		PrimaryErrors: s.stats.primaryErrors.Load(),
		FastFails:     s.stats.fastFails.Load(),
		Fallbacks:     s.stats.fallbacks.Load(),
		DenyCacheHits: s.stats.denyHits.Load(),
	}
	if s.deny != nil {
		st.DenyCacheEntries = s.deny.len()
	}
	return st
}
