package resilient

import (
	"hash/maphash"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ratewindow/ratewindow/core"
)

// denyShards is the number of deny-cache shards (a power of two).
const denyShards = 64

// perKey bounds the denials remembered for one key (one per policy set).
const perKey = 4

// denySample is how many entries a full shard examines for a victim.
const denySample = 8

// denyCache remembers the primary's recent denials.
//
// An entry is the primary's Result for (key, policy set, cost) at time at.
// The policy set is identified by every policy's Name, Window, Algorithm
// and Limit, so a Limiter whose policies change (SetPolicies) never meets
// a denial computed for other limits. Entries are grouped by key, so a
// Reset forgets every denial of the key, whatever the policy set (two sets
// may share a policy's counts).
type denyCache struct {
	seed     maphash.Seed
	perShard int
	shards   [denyShards]denyShard
}

type denyShard struct {
	mu sync.Mutex
	n  atomic.Int32        // len(m), readable without the lock
	m  map[uint64][]denial // by key hash: the key's denials, one per set
	// resets counts the Resets of the shard's keys that reached the
	// primary (written under mu): a denial the primary gave to a call
	// that started before one of them may predate it, and is not stored.
	resets atomic.Uint64
	_      [32]byte // keep shards on separate cache lines
}

// denial is one remembered denial. Times are Unix milliseconds, as in the
// stores.
type denial struct {
	key    string
	set    uint64
	cost   int64
	at     int64              // when the primary denied
	until  int64              // when the longest RetryAfter ends
	states []core.PolicyState // the primary's states at at
}

func newDenyCache(maxKeys int) *denyCache {
	c := &denyCache{seed: maphash.MakeSeed(), perShard: max(1, maxKeys/denyShards)}
	for i := range c.shards {
		c.shards[i].m = make(map[uint64][]denial)
	}
	return c
}

// mix is the splitmix64 finaliser: it spreads the bits of x.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// setID identifies a policy set, limits included.
func setID(policies []core.Policy) uint64 {
	h := uint64(len(policies))
	for i := range policies {
		h = mix(h ^ policies[i].Fingerprint())
		h = mix(h ^ uint64(policies[i].Limit))
	}
	return h
}

// locate returns the shard and the hash of key.
func (c *denyCache) locate(key string) (*denyShard, uint64) {
	kh := maphash.String(c.seed, key)
	return &c.shards[kh&(denyShards-1)], kh
}

// find returns the index of (key, set) in list, or -1.
func find(list []denial, key string, set uint64) int {
	for i := range list {
		if list[i].set == set && list[i].key == key {
			return i
		}
	}
	return -1
}

// lookup returns the remembered denial of (key, set, cost) brought forward
// to now, if there is one: it holds until the longest RetryAfter among its
// denying policies has passed. Only the same cost is answered: a smaller
// one may fit, and for a larger one the states (which policies deny, and
// for how long) would not be exact.
//
// sh and kh are from locate(key). The policy set is hashed only when the
// shard holds something.
func (c *denyCache) lookup(sh *denyShard, kh uint64, key string, policies []core.Policy, cost int64, now time.Time) (r core.Result, ok bool) {
	if sh.n.Load() == 0 {
		return r, false
	}
	set := setID(policies)
	t := now.UnixMilli()
	sh.mu.Lock()
	defer sh.mu.Unlock()
	list := sh.m[kh]
	i := find(list, key, set)
	if i < 0 {
		return r, false
	}
	e := &list[i]
	switch {
	case t >= e.until:
		sh.drop(kh, i)
		return r, false
	case t < e.at || cost != e.cost:
		return r, false
	}
	elapsed := time.Duration(t-e.at) * time.Millisecond
	for i, s := range e.states {
		if !s.Allowed {
			if s.RetryAfter > elapsed {
				s.RetryAfter -= elapsed
			} else {
				// This policy alone admits the cached cost by now.
				s.Allowed, s.RetryAfter, s.Remaining = true, 0, max(s.Remaining, cost)
			}
		}
		s.ResetAfter = max(0, s.ResetAfter-elapsed)
		r.States[i] = s
	}
	return r, true
}

// remember stores a denial the primary just gave to a call that started
// when sh.resets was epoch. A Result in which no policy denies, or whose
// RetryAfter is zero, is not stored, nor one whose call started before a
// Reset of the shard reached the primary (see reset).
func (c *denyCache) remember(sh *denyShard, kh uint64, key string, policies []core.Policy, cost int64, now time.Time, r *core.Result, epoch uint64) {
	var longest time.Duration
	for i := range policies {
		if s := &r.States[i]; !s.Allowed {
			longest = max(longest, s.RetryAfter)
		}
	}
	if longest <= 0 {
		return
	}
	t := now.UnixMilli()
	e := denial{
		key: key, set: setID(policies), cost: cost, at: t, until: t + longest.Milliseconds(),
		states: append([]core.PolicyState(nil), r.States[:len(policies)]...),
	}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	sh.dropAfter(kh, key, t)
	if sh.resets.Load() != epoch {
		return
	}
	list, ok := sh.m[kh]
	if !ok && len(sh.m) >= c.perShard {
		sh.evict(t)
	}
	switch i := find(list, key, e.set); {
	case i >= 0:
		list[i] = e
	case len(list) < perKey:
		list = append(list, e)
	default:
		copy(list, list[1:]) // forget the key's oldest denial
		list[len(list)-1] = e
	}
	sh.m[kh] = list
	sh.n.Store(int32(len(sh.m)))
}

// forget drops every denial of key; sh and kh are from locate(key).
func (c *denyCache) forget(sh *denyShard, kh uint64, key string) {
	if sh.n.Load() == 0 {
		return
	}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	list := sh.m[kh]
	for i := len(list) - 1; i >= 0; i-- {
		if list[i].key == key { // another key may share the hash
			sh.drop(kh, i)
			list = sh.m[kh]
		}
	}
}

// stepBack drops key's denials remembered at an instant after now, once a
// call for key has reached the primary at now (see dropAfter); sh and kh
// are from locate(key).
func (c *denyCache) stepBack(sh *denyShard, kh uint64, key string, now time.Time) {
	if sh.n.Load() == 0 {
		return
	}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	sh.dropAfter(kh, key, now.UnixMilli())
}

// reset forgets key's denials after a Reset of key reached the primary,
// and keeps calls that started before it from remembering theirs: the
// primary may have denied them just before it reset the key.
func (c *denyCache) reset(sh *denyShard, kh uint64, key string) {
	sh.mu.Lock()
	sh.resets.Add(1)
	sh.mu.Unlock()
	c.forget(sh, kh, key)
}

// len returns the number of keys with denials, expired ones not yet
// dropped included.
func (c *denyCache) len() int {
	n := 0
	for i := range c.shards {
		n += int(c.shards[i].n.Load())
	}
	return n
}

// dropAfter drops key's denials remembered at an instant after t, the
// instant of a call for key that reached the primary: the clock stepped
// back past them. That call may have moved the key's counts back to t (a
// store does, for a t more than a window before them: see core/memory),
// even a call the primary denied (another policy set sharing a policy's
// counts), and once the clock is back past such a denial the primary may
// admit what it says. Called with mu held.
func (sh *denyShard) dropAfter(kh uint64, key string, t int64) {
	list := sh.m[kh]
	for i := len(list) - 1; i >= 0; i-- {
		if list[i].at > t && list[i].key == key {
			sh.drop(kh, i)
			list = sh.m[kh]
		}
	}
}

// drop removes list entry i of key hash kh.
func (sh *denyShard) drop(kh uint64, i int) {
	list := sh.m[kh]
	if len(list) == 1 {
		delete(sh.m, kh)
		sh.n.Store(int32(len(sh.m)))
		return
	}
	sh.m[kh] = append(list[:i], list[i+1:]...)
}

// evict makes room for one key: it drops the keys whose denials have all
// expired among the first few it meets (map order is random) or, if none
// had, the first.
func (sh *denyShard) evict(now int64) {
	seen, dropped := 0, 0
	var first uint64
	for kh, list := range sh.m {
		if seen == 0 {
			first = kh
		}
		if expired(list, now) {
			delete(sh.m, kh)
			dropped++
		}
		if seen++; seen >= denySample {
			break
		}
	}
	if dropped == 0 {
		delete(sh.m, first)
	}
}

// expired reports whether every denial in list has run out at now.
func expired(list []denial, now int64) bool {
	for i := range list {
		if list[i].until > now {
			return false
		}
	}
	return true
}
