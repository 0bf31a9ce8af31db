package resilient

import (
	"context"
	"hash/maphash"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/internal/shards"
	"github.com/ratewindow/ratewindow/core/memory"
)

// fallback decides on an in-memory store with every Limit divided by the
// number of replicas.
type fallback struct {
	store    core.Store
	replicas int64
	last     atomic.Pointer[scaledSet] // the policy set scaled most recently

	// stripes order the calls of keys that hash alike (see decide).
	seed    maphash.Seed
	stripes [fallbackStripes]sync.RWMutex
}

// fallbackStripes is the number of key stripes of the fallback's lock.
const fallbackStripes = 64

// scaledSet is a policy set and its scaled copy. A Limiter passes the same
// slice on every call until its policies change, so one cached copy makes
// the degraded path allocation-free in the common case.
type scaledSet struct {
	src    *core.Policy  // &policies[0] of the set it was made from
	orig   []core.Policy // a copy of that set, to detect reuse of the slice
	scaled []core.Policy
}

// fallbackShards is the shard count of the fallback store, whatever the
// CPU count: each shard holds 1/16 of WithLocalMaxKeys, so the default
// (6,250 units a shard) holds a key's sliding log of up to 12,493 records
// (see CheckPolicies). The memory store's default, 16 per CPU, would leave
// 97 units a shard on 64 CPUs: too few for a log of 200 records.
const fallbackShards = 16

func newFallback(replicas, maxKeys int) *fallback {
	store := memory.New(memory.WithMaxKeys(maxKeys), shards.Option[memory.Option](fallbackShards))
	return &fallback{store: store, replicas: int64(replicas), seed: maphash.MakeSeed()}
}

// scale returns policies with each Limit divided by the replicas, at least
// 1. Name, Window and Algorithm are kept, so counts survive a change of
// Limit as they do on the primary.
func (f *fallback) scale(policies []core.Policy) []core.Policy {
	if f.replicas == 1 || len(policies) == 0 {
		return policies
	}
	if s := f.last.Load(); s != nil && s.src == &policies[0] && same(s.orig, policies) {
		return s.scaled
	}
	orig := append([]core.Policy(nil), policies...)
	out := append([]core.Policy(nil), policies...)
	for i := range out {
		out[i].Limit = max(1, out[i].Limit/f.replicas)
	}
	f.last.Store(&scaledSet{src: &policies[0], orig: orig, scaled: out})
	return out
}

// same reports whether two policy sets are equal field by field.
func same(a, b []core.Policy) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		p, q := &a[i], &b[i]
		if p.Name != q.Name || p.Limit != q.Limit || p.Window != q.Window || p.Algorithm != q.Algorithm {
			return false
		}
	}
	return true
}

// stripe returns the lock of key's stripe.
func (f *fallback) stripe(key string) *sync.RWMutex {
	return &f.stripes[maphash.String(f.seed, key)%uint64(len(f.stripes))]
}

// reset forgets key's local counts under policies. It holds the key's
// stripe lock shared, as a call charged in one go does: a call charged
// policy by policy (see decide) is then reset wholly or not at all, never
// one policy's charge cleared and another's kept.
func (f *fallback) reset(ctx context.Context, key string, policies []core.Policy) error {
	mu := f.stripe(key)
	mu.RLock()
	defer mu.RUnlock()
	return f.store.Reset(ctx, key, policies)
}

// decide takes or peeks on the local store. A cost above a policy's
// scaled limit could never be admitted by it locally; it is charged to
// that policy as its whole local quota instead, so such a request gets one
// chance per window on each replica, and to every other policy as itself.
//
// When the policies' charges differ (a cost above some shares, not all),
// one call to the local store cannot make them: each policy is asked
// alone for its own charge, under the key's stripe lock held exclusively,
// and charged only once every one of them admits it, so the decision stays
// all-or-nothing. Other calls for the stripe, and reset, hold the lock
// shared.
func (f *fallback) decide(key string, policies []core.Policy, cost int64, now time.Time, charge bool) core.Result {
	ps := f.scale(policies)
	each := min(cost, ps[0].Limit) // every policy's charge, if uniform
	uniform := true
	for i := range ps {
		uniform = uniform && min(cost, ps[i].Limit) == each
	}
	mu := f.stripe(key)
	ctx := context.Background()
	var r core.Result
	if uniform {
		mu.RLock()
		defer mu.RUnlock()
		if charge {
			r, _ = f.store.Take(ctx, key, ps, each, now)
		} else {
			r, _ = f.store.Peek(ctx, key, ps, each, now)
		}
		return r
	}
	mu.Lock()
	defer mu.Unlock()
	admit := true
	for i := range ps {
		one, _ := f.store.Peek(ctx, key, ps[i:i+1], min(cost, ps[i].Limit), now)
		r.States[i] = one.States[0]
		admit = admit && one.States[0].Allowed
	}
	if !charge || !admit {
		return r
	}
	for i := range ps {
		one, _ := f.store.Take(ctx, key, ps[i:i+1], min(cost, ps[i].Limit), now)
		r.States[i] = one.States[0]
	}
	return r
}
