package faulttest

import (
	"net/http"
	"os"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/redisstore"
	"github.com/ratewindow/ratewindow/core/resilient"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// EnvSoak sets the soak test's duration, e.g. RATEWINDOW_SOAK=60s.
const EnvSoak = "RATEWINDOW_SOAK"

const (
	defaultSoak = 5 * time.Second
	soakClients = 16
	soakLimit   = 20
	soakExtra   = 5 // requests past the limit in each round
	// soakHeapGrowth bounds how much the live heap may grow from the
	// first round to the last.
	soakHeapGrowth = 8 << 20
	// soakGoroutineSlack allows for runtime and net/http helpers that come
	// and go.
	soakGoroutineSlack = 5
)

// soakDuration reads RATEWINDOW_SOAK.
func soakDuration(t *testing.T) time.Duration {
	v := os.Getenv(EnvSoak)
	if v == "" {
		return defaultSoak
	}
	d, err := time.ParseDuration(v)
	require.NoError(t, err, "%s must be a duration such as 60s", EnvSoak)
	return d
}

// settledGoroutines lets finished goroutines exit and returns how many
// are left.
func settledGoroutines(a *app) int {
	a.client.CloseIdleConnections()
	n := runtime.NumGoroutine()
	for range 50 {
		time.Sleep(20 * time.Millisecond)
		m := runtime.NumGoroutine()
		if m >= n {
			break
		}
		n = m
	}
	return runtime.NumGoroutine()
}

// TestSoak runs many clients over loopback through a real HTTP server
// (nethttp middleware, Redis store behind the deny cache) in rounds: in each, every client sends
// its limit and some more, and must get exactly its limit admitted; then
// the limiter's clock moves two windows on. The live heap and the number
// of goroutines after the last round must be those after the first.
func TestSoak(t *testing.T) {
	duration := soakDuration(t)
	rs, err := redisstore.New(testredis.Standalone(t), redisstore.WithPrefix(testredis.Prefix(t)), redisstore.WithClientTime()) // on frozenClock
	require.NoError(t, err)
	primary := &takeCounter{Store: rs}
	store, err := resilient.New(primary, resilient.WithDenyCache())
	require.NoError(t, err)
	clock := frozenClock()
	window := time.Minute // Redis expires keys on its own clock: keep them longer than a round
	l, err := core.NewLimiter(store, []core.Policy{core.Per(soakLimit, window)}, core.WithClock(clock))
	require.NoError(t, err)
	a := newApp(t, l, ratewindow.WithTimeout(2*time.Second), ratewindow.WithFailClosed())

	round := func() map[int]int {
		var mu sync.Mutex
		wrong := map[int]int{} // client → admitted, when not the limit
		var wg sync.WaitGroup
		for c := range soakClients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got := map[int]int{}
				for range soakLimit + soakExtra {
					s, _, err := a.try("client-" + strconv.Itoa(c))
					if err != nil {
						s = -1
					}
					got[s]++
				}
				if got[http.StatusOK] != soakLimit || got[http.StatusTooManyRequests] != soakExtra {
					mu.Lock()
					wrong[c] = got[http.StatusOK]
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		clock.Advance(2 * window)
		return wrong
	}

	require.Empty(t, round(), "first round")
	goroutines := settledGoroutines(a)
	heap := heapInUse()

	rounds := 1
	for start := time.Now(); time.Since(start) < duration; rounds++ {
		require.Empty(t, round(), "round %d: every client admitted exactly its limit", rounds)
	}

	endGoroutines := settledGoroutines(a)
	endHeap := heapInUse()
	t.Logf("%d rounds, %d requests; goroutines %d → %d; heap %.1f → %.1f MB", rounds,
		rounds*soakClients*(soakLimit+soakExtra), goroutines, endGoroutines,
		float64(heap)/(1<<20), float64(endHeap)/(1<<20))
	assert.LessOrEqual(t, endGoroutines, goroutines+soakGoroutineSlack, "no goroutine growth")
	assert.Less(t, int64(endHeap)-int64(heap), int64(soakHeapGrowth), "no heap growth")
	assert.Equal(t, int64(rounds*soakClients*(soakLimit+1)), primary.takes.Load(),
		"after each client's first denial of a round, the deny cache answered, not Redis")
}

// heapInUse returns the heap in use after a full garbage collection.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
