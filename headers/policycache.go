package headers

import (
	"hash/maphash"
	"sync/atomic"
)

// policyCache remembers recent RateLimit-Policy values. The field depends
// only on the limiter's policies, so nearly every response repeats one of a
// few values; reusing the string saves an allocation per response. A value
// is reused only when it matches the freshly formatted bytes exactly, so a
// stale entry can never be written.
var (
	policyCache     [64]atomic.Pointer[string]
	policyCacheSeed = maphash.MakeSeed()
)

// cachedString returns string(b), reusing a cached copy when there is one.
func cachedString(b []byte) string {
	slot := &policyCache[maphash.Bytes(policyCacheSeed, b)&uint64(len(policyCache)-1)]
	if s := slot.Load(); s != nil && *s == string(b) {
		return *s
	}
	s := string(b)
	slot.Store(&s)
	return s
}
