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
