package redisstore_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// compact reports whether key holds a state in compact form: a plain
// integer (the full form is a cmsgpack string).
func compact(t *testing.T, c redis.UniversalClient, key string) bool {
	t.Helper()
	v, err := c.Get(context.Background(), key).Result()
	require.NoError(t, err)
	_, err = strconv.ParseInt(v, 10, 64)
	return err == nil
}

// onlyKey returns the one key under prefix of the user key user.
func onlyKey(t *testing.T, c redis.UniversalClient, prefix, user string) string {
	t.Helper()
	var found []string
	for _, k := range prefixKeys(t, c, prefix) {
		if strings.Contains(k, ":{"+user+"}:") {
			found = append(found, k)
		}
	}
	require.Len(t, found, 1, "keys of %s", user)
	return found[0]
}

// soonAfter returns an instant a little ahead of the real clock, at the
// start of a window of w (so a test's steps do not straddle two).
func soonAfter(w time.Duration) time.Time {
	return time.Now().Add(2 * w).Truncate(w)
}

// Callers whose clocks differ share one key whatever form it is in: a
// caller more than half a second behind Redis's clock writes the full
// form, one in step writes the compact form, and each reads the other's.
// The counts are those of one caller (the memory store) all along.
func TestFormsMixedClocks(t *testing.T) {
	c := testredis.Standalone(t)
	s, prefix := store(t, c)
	ctx := context.Background()
	for _, alg := range []core.Algorithm{core.FixedWindow, core.SlidingWindow} {
		t.Run(alg.String(), func(t *testing.T) {
			// One window holds both clocks: the caller behind is 2 s
			// behind the real clock, the one in step 1 s ahead of it.
			inStep := time.Now().Add(time.Second)
			behind := inStep.Add(-3 * time.Second)
			w := 24 * time.Hour
			for behind.Truncate(w) != inStep.Truncate(w) {
				w += time.Hour
			}
			ps := policies(t, core.Per(100, w).Using(alg).Named(alg.String()))
			mem := memory.New()
			user := "mixed-" + alg.String()
			key := ""
			for i, step := range []struct {
				at      time.Time
				cost    int64
				compact bool
			}{
				{behind, 3, false},  // a new key, written by a caller behind: full
				{inStep, 2, true},   // read full, written compact
				{behind, 4, true},   // the same window: INCRBY keeps the form
				{inStep, 1, true},   // the same window
				{behind, 200, true}, // denied: nothing written
			} {
				got, err := s.Take(ctx, user, ps, step.cost, step.at)
				require.NoError(t, err)
				want, err := mem.Take(ctx, user, ps, step.cost, step.at)
				require.NoError(t, err)
				require.Equal(t, want, got, "step %d", i)
				if key == "" {
					key = onlyKey(t, c, prefix, user)
				}
				assert.Equal(t, step.compact, compact(t, c, key), "step %d", i)
			}
		})
	}
}

// A sliding counter holds its two counts in one integer, prev × 2^26 +
// curr, while both are below 2^26; from 2^26 on it is stored in full form
// (the limit reaches core.MaxLimit), and in compact form again once the
// large count has slid out. Every decision on the way is the memory
// store's.
func TestSlidingCounterLargeCounts(t *testing.T) {
	c := testredis.Standalone(t)
	s, prefix := store(t, c)
	ctx := context.Background()
	const w = time.Second
	ps := policies(t, core.Per(core.MaxLimit, w))
	mem := memory.New()
	t0 := soonAfter(time.Minute)
	for i, step := range []struct {
		at      time.Duration
		cost    int64
		compact bool
		value   int64 // when compact
	}{
		{0, 1<<26 - 1, true, 1<<26 - 1},
		{1 * time.Millisecond, 1, false, 0},                     // curr reaches 2^26
		{w + 10*time.Millisecond, 5, false, 0},                  // prev is 2^26
		{2*w + 20*time.Millisecond, 7, true, 5<<26 + 7},         // prev 5, curr 7
		{2*w + 30*time.Millisecond, 1<<26 - 8, true, 6<<26 - 1}, // INCRBY up to 2^26 - 1
		{2*w + 40*time.Millisecond, 1, false, 0},                // and past it
		{5 * w, 1, true, 1},                                     // both buckets slid out
	} {
		now := t0.Add(step.at)
		got, err := s.Take(ctx, "big", ps, step.cost, now)
		require.NoError(t, err)
		want, err := mem.Take(ctx, "big", ps, step.cost, now)
		require.NoError(t, err)
		require.Equal(t, want, got, "step %d", i)
		require.True(t, got.States[0].Allowed, "step %d", i)
		key := onlyKey(t, c, prefix, "big")
		require.Equal(t, step.compact, compact(t, c, key), "step %d", i)
		if step.compact {
			assert.Equal(t, strconv.FormatInt(step.value, 10), c.Get(ctx, key).Val(), "step %d", i)
		}
	}
}

// MIGRATE (a cluster reshard) and RESTORE carry a key's TTL, not its
// expiry instant, so a compact key's expiry may arrive moved by the time in
// transit: within a quarter window it still names its window, and the
// counts are kept.
func TestCompactKeyRestored(t *testing.T) {
	c := testredis.Standalone(t)
	s, prefix := store(t, c)
	ctx := context.Background()
	for _, alg := range []core.Algorithm{core.FixedWindow, core.SlidingWindow} {
		for _, moved := range []time.Duration{-14 * time.Second, -150 * time.Millisecond, 3 * time.Millisecond, 14 * time.Second} {
			t.Run(fmt.Sprint(alg, moved), func(t *testing.T) {
				ps := policies(t, core.PerMinute(10).Using(alg))
				user := fmt.Sprint("restored-", alg, moved)
				t0 := soonAfter(time.Minute)
				_, err := s.Take(ctx, user, ps, 3, t0)
				require.NoError(t, err)
				key := onlyKey(t, c, prefix, user)
				require.True(t, compact(t, c, key))
				dump, err := c.Dump(ctx, key).Result()
				require.NoError(t, err)
				ttl, err := c.PTTL(ctx, key).Result()
				require.NoError(t, err)
				require.NoError(t, c.RestoreReplace(ctx, key, ttl+moved, dump).Err())

				r, err := s.Take(ctx, user, ps, 1, t0.Add(time.Second))
				require.NoError(t, err)
				assert.EqualValues(t, 6, r.States[0].Remaining, "the 3 units before are kept")
			})
		}
	}
}

// Random sequences on windows of a second or more, where keys take the
// compact form, decide exactly as the same sequences on a caller a day
// behind Redis's clock, whose keys take the full form (the form the
// conformance suite checks on every clock): time mostly moves forward and
// sometimes steps back, beyond a window too, under every algorithm and
// both drivers. The two clocks differ by whole minutes, a multiple of
// every window here.
func TestCompactMatchesFull(t *testing.T) {
	c := testredis.Standalone(t)
	ctx := context.Background()
	ahead := time.Now().Add(24 * time.Hour).Truncate(time.Minute)
	behind := time.Now().Add(-24 * time.Hour).Truncate(time.Minute)
	windows := []time.Duration{time.Second, 1500 * time.Millisecond, 2 * time.Second, 5 * time.Second}
	for seed := range uint64(12) {
		rng := rand.New(rand.NewPCG(seed, 19))
		var ps []core.Policy
		for i := range 1 + rng.IntN(3) {
			alg := core.Algorithm(rng.IntN(3))
			w := windows[rng.IntN(len(windows))]
			ps = append(ps, core.Per(1+rng.Int64N(8), w).Using(alg).Named(strconv.Itoa(i)))
		}
		ps = policies(t, ps...)
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			compactStore, compactPrefix := store(t, c)
			fullStore, fullPrefix := store(t, c)
			at := time.Duration(rng.IntN(1000)) * time.Microsecond
			for step := range 300 {
				if rng.IntN(20) == 0 {
					at -= time.Duration(rng.IntN(12_000)) * time.Millisecond // a step back
				} else {
					at += time.Duration(rng.IntN(700_000)) * time.Microsecond
				}
				key := "k" + strconv.Itoa(rng.IntN(2))
				cost := 1 + rng.Int64N(3)
				var got, want core.Result
				var err error
				switch rng.IntN(10) {
				case 0:
					got, err = compactStore.Peek(ctx, key, ps, cost, ahead.Add(at))
					require.NoError(t, err)
					want, err = fullStore.Peek(ctx, key, ps, cost, behind.Add(at))
				case 1:
					require.NoError(t, compactStore.Reset(ctx, key, ps))
					require.NoError(t, fullStore.Reset(ctx, key, ps))
					continue
				default:
					got, err = compactStore.Take(ctx, key, ps, cost, ahead.Add(at))
					require.NoError(t, err)
					want, err = fullStore.Take(ctx, key, ps, cost, behind.Add(at))
				}
				require.NoError(t, err)
				require.Equal(t, want, got, "step %d: %s at %v cost %d", step, key, at, cost)
			}
			// Both forms were written.
			var compactKeys, fullKeys int
			for _, k := range prefixKeys(t, c, compactPrefix) {
				if c.Type(ctx, k).Val() == "string" && compact(t, c, k) {
					compactKeys++
				}
			}
			for _, k := range prefixKeys(t, c, fullPrefix) {
				if c.Type(ctx, k).Val() == "string" && !compact(t, c, k) {
					fullKeys++
				}
			}
			if hasCounter(ps) {
				assert.Positive(t, compactKeys, "compact keys")
				assert.Positive(t, fullKeys, "full keys")
			}
		})
	}
}

// hasCounter reports whether ps holds a fixed window or a sliding counter.
func hasCounter(ps []core.Policy) bool {
	for _, p := range ps {
		if p.Algorithm != core.SlidingLog {
			return true
		}
	}
	return false
}
