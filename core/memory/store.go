package memory

import (
	"context"
	"fmt"
	"hash/maphash"
	"math/bits"
	"runtime"
	"slices"
	"time"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/internal/algo"
	"github.com/ratewindow/ratewindow/core/internal/callcheck"
)

// store is the in-memory core.Store that New returns.
type store struct {
	seed        maphash.Seed
	shards      []shard
	mask        uint64
	maxKeys     int // WithMaxKeys, for CheckPolicies' errors
	maxPerShard int
}

var _ core.Store = (*store)(nil)

// Option configures the store New returns.
type Option func(*config)

type config struct {
	shards  int
	maxKeys int
}

// withShards sets the number of shards, rounded up to a power of two
// between 1 and 65536. The default is 16 per CPU; only tests change it.
func withShards(n int) Option { return func(c *config) { c.SetShards(n) } }

// SetShards sets the number of shards, as withShards does. It is for
// core/resilient, which gives its fallback store a fixed count through
// core/internal/shards.
func (c *config) SetShards(n int) { c.shards = n }

// WithMaxKeys caps the store's memory at about n counter entries of about
// 32 bytes (n ≤ 0 means no cap, the default). A fixed-window or
// sliding-counter entry weighs one unit; a sliding log four plus one per
// two records its buffer holds, so the cap bounds bytes, not just keys.
//
// The cap is split evenly among the store's shards (16 per CPU, rounded up
// to a power of two): each holds at most n divided by the shard count (at
// least one unit), evicting other keys' entries to stay there (see the
// package doc). All of a key's entries live in one shard, so NewLimiter and
// SetPolicies refuse policies under which one key could weigh more than a
// shard's share, with an error wrapping core.ErrInvalidConfig that names
// the smallest n that would do. A sliding log of Limit L per Window W
// weighs at most 4 + min(L, W/1ms + 1)/2 units, a counter 1, and a key
// weighs the sum over the limiter's policies. On 64 CPUs, say,
// WithMaxKeys(100_000) leaves 97 units a shard: enough for a sliding log of
// Limit 187, not of 1,000 (504 units: WithMaxKeys(516_096) or more). Each
// limiter is checked on its own: a key that several limiters share weighs
// the sum.
//
// A share only just larger than one key leaves room for little else, and
// a new key in a full shard evicts another, the heavy one included: size n
// so that a share holds many of the heaviest keys.
func WithMaxKeys(n int) Option { return func(c *config) { c.maxKeys = n } }

// New returns an empty in-memory core.Store, safe for concurrent use. Its
// Take, Peek and Reset never block on anything but a shard's mutex, so they
// do not consult their context.
func New(opts ...Option) core.Store {
	c := config{shards: 16 * runtime.GOMAXPROCS(0)}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	n := min(max(c.shards, 1), 1<<16)
	n = 1 << bits.Len(uint(n-1))
	s := &store{seed: maphash.MakeSeed(), shards: make([]shard, n), mask: uint64(n - 1)}
	if c.maxKeys > 0 {
		s.maxKeys = c.maxKeys
		s.maxPerShard = max(1, c.maxKeys/n)
	}
	return s
}

// Take implements core.Store.
func (s *store) Take(_ context.Context, key string, policies []core.Policy, cost int64, now time.Time) (r core.Result, err error) {
	if !callcheck.Valid(policies, cost) || !countable(policies) {
		return r, fmt.Errorf("memory: take: %w", refusal(policies, cost))
	}
	ms, up := instants(now)
	if len(policies) == 1 {
		s.decideSingle(&r.States[0], key, &policies[0], cost, ms, up, true)
		return r, nil
	}
	s.decide(&r, key, policies, cost, ms, up, true)
	return r, nil
}

// Peek implements core.Store.
func (s *store) Peek(_ context.Context, key string, policies []core.Policy, cost int64, now time.Time) (r core.Result, err error) {
	if !callcheck.Valid(policies, cost) || !countable(policies) {
		return r, fmt.Errorf("memory: peek: %w", refusal(policies, cost))
	}
	ms, up := instants(now)
	s.decide(&r, key, policies, cost, ms, up, false)
	return r, nil
}

// countable reports whether the store can count under every policy: a
// Window of at least a millisecond (windows are counted in whole ones) and
// a Limit its 32-bit counts hold. A Limiter's policies always are; a
// direct caller's may not be, and must be refused rather than divide by a
// zero window or let counts wrap around.
func countable(policies []core.Policy) bool {
	for i := range policies {
		if !countableUnder(&policies[i]) {
			return false
		}
	}
	return true
}

// countableUnder reports whether the store can count under p (see
// countable).
func countableUnder(p *core.Policy) bool {
	return p.Window >= time.Millisecond && p.Limit <= core.MaxLimit
}

// refusal is the error for a call that callcheck.Valid or countable
// refuses.
func refusal(policies []core.Policy, cost int64) error {
	if err := callcheck.Check(policies, cost); err != nil {
		return err
	}
	for i := range policies {
		if p := &policies[i]; !countableUnder(p) {
			return fmt.Errorf("%w: policies[%d] (%v): the memory store needs a Window of at least 1ms and a Limit of at most %d (pass the policies of a Limiter)",
				core.ErrInvalidConfig, i, p, int64(core.MaxLimit))
		}
	}
	return nil
}

// instants returns t in Unix milliseconds rounded down and rounded up.
func instants(t time.Time) (down, up int64) {
	down = t.UnixMilli()
	if t.Nanosecond()%int(time.Millisecond) != 0 {
		return down, down + 1
	}
	return down, down
}

// Reset implements core.Store.
func (s *store) Reset(_ context.Context, key string, policies []core.Policy) error {
	h := s.hash(key)
	sh := &s.shards[h&s.mask]
	sh.mu.Lock()
	sh.retireKey(h)
	for i := range policies {
		if t := sh.find(policies[i].Fingerprint()); t != nil {
			entries, units := t.remove(h)
			sh.keys -= entries
			sh.used -= units
		}
	}
	sh.mu.Unlock()
	return nil
}

// entries returns the number of tracked (key, policy) entries, expired ones
// not yet reclaimed included.
func (s *store) entries() int {
	n := 0
	for i := range s.shards {
		sh := &s.shards[i]
		sh.mu.Lock()
		n += sh.keys
		sh.mu.Unlock()
	}
	return n
}

// decide evaluates (and with charge, charges) every policy for key, writing
// each policy's state into r, which the caller passes zeroed. now and up
// are the call's instant in Unix milliseconds, rounded down and up.
func (s *store) decide(r *core.Result, key string, policies []core.Policy, cost, now, up int64, charge bool) {
	if len(policies) == 1 {
		s.decideSingle(&r.States[0], key, &policies[0], cost, now, up, charge)
		return
	}
	var (
		tables  [core.MaxPolicies]*table
		known   [core.MaxPolicies]bool
		fixed   [core.MaxPolicies]algo.FixedWindowState
		sliding [core.MaxPolicies]algo.SlidingWindowState
		logs    [core.MaxPolicies]*algo.SlidingLogState
		weights [core.MaxPolicies]int
	)
	h := s.hash(key)
	sh := &s.shards[h&s.mask]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	sh.retireKey(h)
	all := true
	for i := range policies {
		p := &policies[i]
		t := sh.table(p, p.Fingerprint())
		tables[i] = t
		lim, w := p.Limit, t.window
		var ps core.PolicyState
		switch t.alg {
		case core.FixedWindow:
			c, ok := t.fixed.get(h)
			fixed[i], ps = c.state().Eval(now, lim, w, cost)
			if known[i] = ok; ok && fixed[i].Start < c.start {
				t.fixed.put(h, toFixedCell(fixed[i])) // rebased after a clock step back
			}
		case core.SlidingLog:
			l, _ := t.logs.get(h)
			if known[i] = l != nil; known[i] {
				weights[i] = logWeight(l)
			} else {
				l = new(algo.SlidingLogState)
			}
			logs[i] = l
			ps = l.Eval(now, up, lim, w, cost)
		default:
			c, ok := t.sliding.get(h)
			sliding[i], ps = c.state().Eval(now, lim, w, cost)
			if known[i] = ok; ok && sliding[i].Start < c.start {
				t.sliding.put(h, toSlidingCell(sliding[i])) // rebased after a clock step back
			}
		}
		r.States[i] = ps
		all = all && ps.Allowed
	}
	if all && charge {
		for i := range policies {
			t, lim := tables[i], policies[i].Limit
			w := t.window
			switch t.alg {
			case core.FixedWindow:
				fixed[i], r.States[i] = fixed[i].Charge(now, lim, w, cost)
				t.fixed.put(h, toFixedCell(fixed[i]))
			case core.SlidingLog:
				r.States[i] = logs[i].Charge(now, up, lim, w, cost)
				if !known[i] {
					t.logs.put(h, logs[i])
				}
			default:
				sliding[i], r.States[i] = sliding[i].Charge(now, lim, w, cost)
				t.sliding.put(h, toSlidingCell(sliding[i]))
			}
		}
	}
	// Count what changed, then make room: a sweep or an eviction never
	// touches h, so the states above stay in their tables.
	for i := range policies {
		t := tables[i]
		switch {
		case t.alg == core.SlidingLog && known[i]:
			s.reweigh(sh, h, now, logWeight(logs[i])-weights[i])
		case known[i] || !all || !charge:
		case t.alg == core.SlidingLog:
			s.addEntry(sh, t, h, now, logWeight(logs[i]))
		default:
			s.addEntry(sh, t, h, now, 1)
		}
	}
	s.sweepSometimes(sh, h, now)
}

// hash is key's hash under the store's seed, never 0 (see nonZero).
func (s *store) hash(key string) uint64 { return nonZero(maphash.String(s.seed, key)) }

// addEntry counts a new entry of t for key hash h, weighing units, after
// reclaiming a few expired entries of t, and makes room for it when the
// shard is over its cap.
func (s *store) addEntry(sh *shard, t *table, h uint64, now int64, units int) {
	entries, freed := t.sweep(h, h, sh.hotHash(t), now, sweepSample, false)
	sh.keys -= entries
	sh.used -= freed
	sh.keys++
	s.reweigh(sh, h, now, units)
}

// reweigh adds delta units to the shard's weight and, while it is over the
// cap, evicts entries of other keys than h: expired ones when a small
// sample finds them, else any.
func (s *store) reweigh(sh *shard, h uint64, now int64, delta int) {
	sh.used += delta
	if s.maxPerShard <= 0 {
		return
	}
	start := h
	for sh.used > s.maxPerShard {
		freed := false
		for _, victim := range sh.tables {
			if entries, units := victim.sweep(start, h, sh.hotHash(victim), now, evictSample, true); entries > 0 {
				sh.keys -= entries
				sh.used -= units
				freed = true
				break
			}
		}
		if !freed {
			return // only h is left: it alone may exceed the cap
		}
		start = start*0x9E3779B97F4A7C15 + 1 // the next sample starts elsewhere
	}
}

// sweepSometimes sweeps a few entries every sweepEvery calls on sh, so a
// shard whose keys expired gives its memory back even if no new key comes.
func (s *store) sweepSometimes(sh *shard, h uint64, now int64) {
	if sh.calls++; sh.calls%sweepEvery != 0 {
		return
	}
	s.sweep(sh, h, now)
}

// sweep sweeps a few entries of one of the shard's tables, taking them in
// turn, and checks the shard's hot cell; the caller holds the mutex. Every
// table is swept, not only those of the calls that come: the table of a
// policy that SetPolicies replaced (another Window, Name or Algorithm)
// gives its memory back too, and is dropped once empty.
func (s *store) sweep(sh *shard, h uint64, now int64) {
	sh.checkHot(now)
	if len(sh.tables) == 0 {
		return
	}
	sh.sweeps++
	i := int(sh.sweeps % uint32(len(sh.tables)))
	t := sh.tables[i]
	entries, units := t.sweep(h*0x9E3779B97F4A7C15, h, sh.hotHash(t), now, touchSample, false)
	sh.keys -= entries
	sh.used -= units
	if t.len() == 0 && sh.hotHash(t) == 0 {
		// Nothing to keep: a later call for its policy makes it afresh.
		sh.tables = slices.Delete(sh.tables, i, i+1)
	}
}
