package memory_test

import (
	"context"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/internal/clocktest"
)

// With two policies, making room for one policy's entry must never evict
// the same key's entry of the other policy (it was then written back
// uncounted, and the cap stopped capping). Every table stays under the cap,
// and Len counts what the tables hold.
func TestKeyCapHoldsWithTwoPolicies(t *testing.T) {
	const capKeys = 10_000
	s := memory.New(memory.WithMaxKeys(capKeys))
	ps := policies(t, core.PerSecond(10).Named("burst"), core.PerHour(1000).Named("hourly"))
	ctx := context.Background()
	now := t0
	for i := range 300_000 {
		// Keys come back: 60,000 distinct ones, five times each.
		_, err := s.Take(ctx, "flood-"+strconv.Itoa(i%60_000), ps, 1, now)
		require.NoError(t, err)
		if i%1000 == 0 {
			now = now.Add(time.Millisecond)
		}
	}
	entries, _ := memory.EntriesForTest(s)
	assert.Equal(t, memory.Len(s), entries, "Len counts every entry the tables hold")
	assert.LessOrEqual(t, entries, capKeys+capKeys/10, "the cap bounds the tables")
	assert.Greater(t, entries, capKeys/2, "the cap should be used, not emptied")
}

// A sliding log is weighed by its buffer: a cap of 1,000 entries bounds the
// bytes of long logs too, not only their number. One shard, so that its
// share holds the largest log (504 units) and a limiter accepts the policy.
func TestKeyCapBoundsLogBytes(t *testing.T) {
	const capKeys = 1000
	before := heapInUse()
	s := memory.New(memory.WithShards(1), memory.WithMaxKeys(capKeys))
	ps := policies(t, core.PerMinute(1000).Using(core.SlidingLog))
	_, err := core.NewLimiter(s, ps)
	require.NoError(t, err)
	ctx := context.Background()
	for k := range capKeys {
		key := "log-" + strconv.Itoa(k)
		for i := range 400 {
			// A millisecond apart: one record each.
			_, err := s.Take(ctx, key, ps, 1, t0.Add(time.Duration(i)*time.Millisecond))
			require.NoError(t, err)
		}
	}
	held := int64(heapInUse()) - int64(before)
	t.Logf("1,000 logs of 400 requests under WithMaxKeys(1000): %d bytes held, %d entries", held, memory.Len(s))
	// 1,000 counter entries' worth is about 32 KB; 6.4 MB (1,000 logs of
	// 400 records) is what an entry count alone lets through.
	assert.Less(t, held, int64(1<<20))
	runtime.KeepAlive(s)
}

// A request's weight costs neither memory nor time: a log admitting one
// request of 20,000,000 units allocates a few hundred bytes, and its
// RetryAfter is exact.
func TestWeightedLogRequestIsOneRecord(t *testing.T) {
	s := memory.New()
	ps := policies(t, core.Per(20_000_000, time.Hour).Using(core.SlidingLog))
	ctx := context.Background()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	r, err := s.Take(ctx, "heavy", ps, 20_000_000, t0)
	runtime.ReadMemStats(&m1)
	require.NoError(t, err)
	require.True(t, r.States[0].Allowed)
	assert.Less(t, m1.TotalAlloc-m0.TotalAlloc, uint64(64<<10), "bytes allocated by one heavy request")
	assert.Equal(t, 4, memory.LogCapForTest(s, "heavy", ps[0]))

	r, err = s.Take(ctx, "heavy", ps, 1, t0.Add(time.Second))
	require.NoError(t, err)
	require.False(t, r.States[0].Allowed)
	assert.Equal(t, time.Hour-time.Second, r.States[0].RetryAfter)
	r, err = s.Take(ctx, "heavy", ps, 1, t0.Add(time.Hour-time.Millisecond))
	require.NoError(t, err)
	require.False(t, r.States[0].Allowed, "a millisecond before RetryAfter")
	r, err = s.Take(ctx, "heavy", ps, 20_000_000, t0.Add(time.Hour))
	require.NoError(t, err)
	require.True(t, r.States[0].Allowed, "at RetryAfter")
}

// After a flood of distinct keys expires, ordinary traffic reclaims the
// entries and the tables shrink: the memory is given back.
func TestFloodMemoryIsGivenBack(t *testing.T) {
	ctx := context.Background()
	before := heapInUse()
	s := memory.New()
	ps := policies(t, core.PerSecond(10).Using(core.FixedWindow), core.PerSecond(5).Named("log").Using(core.SlidingLog))
	const flood = 100_000
	for i := range flood {
		_, err := s.Take(ctx, "flood-"+strconv.Itoa(i), ps, 1, t0)
		require.NoError(t, err)
	}
	peak := heapInUse()
	// The flood is over: a few clients come and go.
	now := t0.Add(time.Hour)
	for i := range 50_000 {
		_, err := s.Take(ctx, "after-"+strconv.Itoa(i%5000), ps, 1, now)
		require.NoError(t, err)
		if i%100 == 0 {
			now = now.Add(time.Second)
		}
	}
	after := heapInUse()
	entries, slots := memory.EntriesForTest(s)
	t.Logf("heap in use: before %d KB, at the peak %d KB, after %d KB (%d entries in %d slots)",
		before>>10, peak>>10, after>>10, entries, slots)
	grew, kept := int64(peak)-int64(before), int64(after)-int64(before)
	assert.Less(t, kept, grew/4, "most of the flood's memory is given back")
	assert.Less(t, entries, flood/10)
	runtime.KeepAlive(s)
}

// The clock faults of a real server, on a fake clock: a jump ahead by a
// day, one request, a step back. The key must recover within about a
// window, and a client that waits RetryAfter is let in.
func TestClockFaultsDoNotLockOut(t *testing.T) {
	for _, alg := range []core.Algorithm{core.FixedWindow, core.SlidingWindow, core.SlidingLog} {
		t.Run(alg.String(), func(t *testing.T) {
			clock := clocktest.New(t0)
			l, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(3).Using(alg)}, core.WithClock(clock))
			require.NoError(t, err)
			ctx := context.Background()
			clock.Advance(24 * time.Hour)
			d, err := l.Allow(ctx, "k")
			require.NoError(t, err)
			require.True(t, d.Allowed)
			clock.Set(t0.Add(time.Second))
			allowed := 0
			for range 5 {
				if d, err = l.Allow(ctx, "k"); err == nil && d.Allowed {
					allowed++
				}
			}
			require.NoError(t, err)
			assert.Equal(t, 2, allowed)
			for i := range 3 {
				require.False(t, d.Allowed)
				require.LessOrEqual(t, d.RetryAfter, 2*time.Minute)
				clock.Advance(d.RetryAfter)
				d, err = l.Allow(ctx, "k")
				require.NoError(t, err)
				if d.Allowed {
					break
				}
				require.Less(t, i, 2, "still denied after waiting RetryAfter three times")
			}
			assert.True(t, d.Allowed, "waiting RetryAfter lets the client in")
		})
	}
}

// Key flood parameters: the flood, the cap, and the heap the capped store
// may hold. Entries measure about 40-80 bytes per (key, policy), map
// overhead included, so 100,000 take 4-8 MB; the bound leaves room for
// other platforms and allocators, yet a store that kept every key of the
// flood (40+ MB) fails it.
const (
	floodKeys   = 1_000_000
	floodCap    = 100_000
	floodHeapMB = 16
)

// ipKey writes the i-th IPv4 address of 10.0.0.0/8 into buf.
func ipKey(buf []byte, i int) []byte {
	buf = buf[:0]
	buf = append(buf, "10."...)
	buf = strconv.AppendInt(buf, int64(i>>16&0xff), 10)
	buf = append(buf, '.')
	buf = strconv.AppendInt(buf, int64(i>>8&0xff), 10)
	buf = append(buf, '.')
	buf = strconv.AppendInt(buf, int64(i&0xff), 10)
	return buf
}

// TestKeyFlood sends one million distinct client addresses through a
// limiter on the memory store capped at 100,000 entries: the store never
// holds more than the cap, its heap stays under the stated bound, every
// new client is still admitted (eviction never denies), and deciding for
// a known or a brand-new key allocates nothing.
func TestKeyFlood(t *testing.T) {
	if testing.Short() {
		t.Skip("one million keys")
	}
	ctx := context.Background()
	base := heapInUse()
	store := memory.New(memory.WithMaxKeys(floodCap))
	l, err := core.NewLimiter(store, []core.Policy{core.PerMinute(60)}, core.WithClock(clocktest.New(time.Now().Truncate(time.Hour))))
	require.NoError(t, err)

	// The flood runs on every CPU (the store is sharded); worker 0 also
	// samples the store's size as it goes.
	workers := runtime.GOMAXPROCS(0)
	var denied atomic.Int64
	var maxLen atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte
			for i := w; i < floodKeys; i += workers {
				buf = ipKey(buf, i)
				d, err := l.Allow(ctx, string(buf))
				if err != nil || !d.Allowed {
					denied.Add(1)
				}
				if w == 0 && i%(50_000*workers) == 0 {
					maxLen.Store(max(maxLen.Load(), int64(memory.Len(store))))
				}
			}
		}()
	}
	wg.Wait()
	maxLen.Store(max(maxLen.Load(), int64(memory.Len(store))))
	assert.Zero(t, denied.Load(), "a new client always has its full quota")
	assert.LessOrEqual(t, maxLen.Load(), int64(floodCap), "entries stay within the cap")
	assert.Greater(t, memory.Len(store), floodCap/2, "the cap is used")

	heap := heapInUse()
	var grown uint64
	if heap > base {
		grown = heap - base
	}
	t.Logf("%d keys: %d entries, heap %.1f MB (%.0f bytes per entry)",
		floodKeys, memory.Len(store), float64(grown)/(1<<20), float64(grown)/float64(memory.Len(store)))
	assert.Less(t, grown, uint64(floodHeapMB<<20), "heap of the capped store")
	runtime.KeepAlive(store)

	// The hot path: a known key, and a new key in a full store (evicting
	// one), both free of allocations.
	known := "10.0.0.1"
	_, _ = l.Allow(ctx, known)
	assert.Zero(t, testing.AllocsPerRun(1000, func() { _, _ = l.Allow(ctx, known) }), "known key")
	fresh := make([]string, 2000)
	for i := range fresh {
		fresh[i] = "192.168." + strconv.Itoa(i>>8) + "." + strconv.Itoa(i&0xff)
	}
	next := 0
	allocs := testing.AllocsPerRun(1000, func() {
		_, _ = l.Allow(ctx, fresh[next%len(fresh)])
		next++
	})
	assert.Zero(t, allocs, "new key in a full store")
	assert.LessOrEqual(t, memory.Len(store), floodCap)
}

// A policy replaced at run time (a new Window, so new counters) leaves its
// old entries behind. Once they expire they are reclaimed like any other,
// though no call uses their policy any more, and the shard drops the
// emptied table: memory does not grow with each reload of the policies.
func TestReplacedPolicyMemoryIsGivenBack(t *testing.T) {
	ctx := context.Background()
	clock := clocktest.New(t0)
	s := memory.New(memory.WithShards(4))
	for _, alg := range []core.Algorithm{core.FixedWindow, core.SlidingWindow, core.SlidingLog} {
		l, err := core.NewLimiter(s, []core.Policy{core.PerSecond(10).Using(alg)}, core.WithClock(clock))
		require.NoError(t, err)
		const flood = 20_000
		for i := range flood {
			_, err := l.Allow(ctx, "flood-"+strconv.Itoa(i))
			require.NoError(t, err)
		}
		// Reloads with new windows, each seeing some traffic.
		for reload := range 50 {
			window := time.Duration(2000+reload) * time.Millisecond
			require.NoError(t, l.SetPolicies(core.Per(10, window).Using(alg)))
			for i := range 1000 {
				_, err := l.Allow(ctx, "client-"+strconv.Itoa(i%50))
				require.NoError(t, err)
			}
			clock.Advance(time.Second)
		}
		clock.Advance(time.Hour)
		for i := range 20_000 {
			_, err := l.Allow(ctx, "after-"+strconv.Itoa(i%500))
			require.NoError(t, err)
			if i%100 == 0 {
				clock.Advance(time.Second)
			}
		}
		entries, slots := memory.EntriesForTest(s)
		t.Logf("%v: %d entries in %d slots, at most %d tables a shard", alg, entries, slots, memory.TablesForTest(s))
		assert.Less(t, entries, flood/10, "%v: the replaced policies' entries are reclaimed", alg)
		assert.LessOrEqual(t, memory.TablesForTest(s), 3, "%v: the replaced policies' tables are dropped", alg)
	}
}
