package resilient

import "github.com/ratewindow/ratewindow/core"

var _ core.LocalStore = (*Store)(nil)

// ProcessLocal implements core.LocalStore for the primary store: s is
// process-local when its primary is. The local fallback is left out: it
// is a memory store in each process by design, its Limits divided by
// WithFallback's replicas, which count every process.
func (s *Store) ProcessLocal() bool {
	p, ok := s.primary.(core.LocalStore)
	return ok && p.ProcessLocal()
}
