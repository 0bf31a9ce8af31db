package resilient

import "sync/atomic"

// counters count what a Store did since it was created; the package's
// tests read them.
type counters struct {
	primaryErrors, fastFails, fallbacks, denyHits atomic.Int64
}
