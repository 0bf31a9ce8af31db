package memory

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/internal/algo"
	"github.com/ratewindow/ratewindow/internal/policytest"
)

var stepBase = time.UnixMilli(1_800_000_000_000)

// TestSweepAfterStepBackForgetsOnlyExpired shows, with explicit instants,
// the one way in which a memory store's decisions depend on more than the
// key's own calls: a key's entry that expired at an instant some call on
// the store has seen may be swept (here by the insert of another key in
// the shard), and a call on the key after the clock stepped back to before
// that instant then finds its counts forgotten. The same calls without the
// other key's insert find them kept. Both answers are what the package doc
// allows; an entry that still counts at the latest instant is never swept.
func TestSweepAfterStepBackForgetsOnlyExpired(t *testing.T) {
	ctx := context.Background()
	for _, alg := range []core.Algorithm{core.FixedWindow, core.SlidingWindow, core.SlidingLog} {
		t.Run(alg.String(), func(t *testing.T) {
			ps, err := policytest.Validate([]core.Policy{core.PerSecond(2).Using(alg)})
			require.NoError(t, err)
			at := func(ms int64) time.Time { return stepBase.Add(time.Duration(ms) * time.Millisecond) }
			run := func(other int64) bool {
				s := New(withShards(1))
				for range 2 {
					r, err := s.Take(ctx, "a", ps, 1, at(0))
					require.NoError(t, err)
					require.True(t, r.States[0].Allowed)
				}
				if other > 0 {
					// Another key's first call: its insert sweeps the shard's
					// table from its slot, a's entry included.
					_, err := s.Take(ctx, "b", ps, 1, at(other))
					require.NoError(t, err)
				}
				r, err := s.Take(ctx, "a", ps, 1, at(500)) // the clock stepped back
				require.NoError(t, err)
				return r.States[0].Allowed
			}
			require.False(t, run(0), "without a sweep a's counts are kept")
			// 999 ms after: a's entry still counts then (its window, or its
			// log's record, has not ended), so nothing forgets it.
			require.False(t, run(999), "an entry that counts at the latest instant is never swept")
			// 2001 ms after: every algorithm's entry has expired (the sliding
			// counter's after two windows) and the sweep forgets it.
			require.True(t, run(2001), "an entry expired at the latest instant may be swept")
		})
	}
}

// keptKey is what a memory store that never swept would hold for one key
// under one policy: the state after the key's own calls, by the same steps
// as decideSingle.
type keptKey struct {
	present bool
	fixed   algo.FixedWindowState
	sliding algo.SlidingWindowState
	log     *algo.SlidingLogState
}

// take is decideSingle's Take on the kept state.
func (k *keptKey) take(p *core.Policy, cost, now, up int64) core.PolicyState {
	lim, w := p.Limit, p.Window.Milliseconds()
	var ps core.PolicyState
	switch p.Algorithm {
	case core.FixedWindow:
		st, out := k.fixed.Take(now, lim, w, cost)
		if out.Allowed || (k.present && st.Start < k.fixed.Start) {
			k.fixed = st
		}
		ps = out
	case core.SlidingWindow:
		st, out := k.sliding.Take(now, lim, w, cost)
		if out.Allowed || (k.present && st.Start < k.sliding.Start) {
			k.sliding = st
		}
		ps = out
	default:
		if !k.present {
			var empty algo.SlidingLogState
			if ps = empty.Eval(now, up, lim, w, cost); ps.Allowed {
				k.log = new(algo.SlidingLogState)
				ps = k.log.Charge(now, up, lim, w, cost)
			}
		} else {
			ps = k.log.Take(now, up, lim, w, cost)
		}
	}
	k.present = k.present || ps.Allowed
	return ps
}

// expired reports whether the kept state holds nothing that counts at now.
func (k *keptKey) expired(p *core.Policy, now int64) bool {
	w := p.Window.Milliseconds()
	switch p.Algorithm {
	case core.FixedWindow:
		return k.fixed.Expired(now, w)
	case core.SlidingWindow:
		return k.sliding.Expired(now, w)
	default:
		return k.log.Expired(now, w)
	}
}

// holds reports whether s has an entry for key under p.
func holds(s *store, key string, p *core.Policy) bool {
	h, sh := shardOf(s, key)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	t := sh.find(p.Fingerprint())
	if t == nil {
		return false
	}
	return t.fixed.find(h) >= 0 || t.sliding.find(h) >= 0 || t.logs.find(h) >= 0
}

// TestStepBackDecisionsAreKeptOrSwept replays random Takes on a few keys,
// at instants moving forward by under a millisecond and now and then
// stepping back (by up to 3 s, some by less than a window), and pins what
// holds across the steps whatever the store's sweeps did: every decision
// is the one a store that never forgot anything would make, except that a
// key's entry may have been forgotten once it was expired at the latest
// instant any call on the store had passed, and then only. Run on one
// shard (every insert and every 32nd call sweeps the keys of the others)
// and on the default shards (where whether a key is swept depends on the
// store's hash seed).
func TestStepBackDecisionsAreKeptOrSwept(t *testing.T) {
	ctx := context.Background()
	for _, alg := range []core.Algorithm{core.FixedWindow, core.SlidingWindow, core.SlidingLog} {
		for _, shards := range []int{1, 0} {
			t.Run(fmt.Sprintf("%v/shards=%d", alg, shards), func(t *testing.T) {
				ps, err := policytest.Validate([]core.Policy{core.Per(3, 20*time.Millisecond).Using(alg)})
				require.NoError(t, err)
				p := &ps[0]
				forgotten, mattered := 0, 0
				for seed := range uint64(3) {
					var s *store
					if shards > 0 {
						s = New(withShards(shards)).(*store)
					} else {
						s = New().(*store)
					}
					rng := rand.New(rand.NewPCG(seed, uint64(alg)))
					kept := map[string]*keptKey{}
					var now, latest int64 // ns after stepBase; latest: the largest instant seen, in ms
					for i := range 4000 {
						now += rng.Int64N(int64(time.Millisecond))
						if rng.IntN(100) == 0 {
							back := rng.Int64N(3 * int64(time.Second))
							if rng.IntN(2) == 0 {
								back = rng.Int64N(2 * int64(p.Window))
							}
							now -= back
						}
						key := fmt.Sprintf("k%d", rng.IntN(1+rng.IntN(12)))
						cost := 1 + rng.Int64N(2)
						when := stepBase.Add(time.Duration(now))
						down, up := instants(when)
						k := kept[key]
						if k == nil {
							k = &keptKey{}
							kept[key] = k
						}
						switch has := holds(s, key, p); {
						case has && !k.present:
							t.Fatalf("seed %d step %d: the store holds %s, which never had an admission kept", seed, i, key)
						case !has && k.present:
							require.True(t, k.expired(p, latest), "seed %d step %d: %s forgotten though it counts at %d, the latest instant", seed, i, key, latest)
							if !k.expired(p, down) {
								mattered++ // kept, it would have counted now
							}
							*k = keptKey{}
							forgotten++
						}
						want := k.take(p, cost, down, up)
						r, err := s.Take(ctx, key, ps, cost, when)
						require.NoError(t, err)
						require.Equal(t, want, r.States[0], "seed %d step %d: Take(%s, cost %d) at %d ns", seed, i, key, cost, now)
						latest = max(latest, down)
					}
				}
				if shards == 1 {
					require.Positive(t, forgotten, "the sequences should make the store sweep some keys")
					require.Positive(t, mattered, "some swept keys should be called back before the end of their window")
				}
			})
		}
	}
}
