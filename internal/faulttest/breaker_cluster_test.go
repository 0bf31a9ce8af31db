package faulttest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/redisstore"
	"github.com/ratewindow/ratewindow/core/resilient"
	"github.com/ratewindow/ratewindow/internal/breakertest"
)

// TestLostMasterOpensOnlyItsBreaker kills one master of three behind
// resilient.New with a fallback: its keys trip their breaker (fallback
// decisions for ErrCircuitOpen), while the keys of the two other masters
// keep getting Redis decisions and never meet an open breaker. State is
// not Closed while the master is lost (the hook saw Closed to Open), and
// closes again once it is back. With one breaker for the whole Cluster,
// the lost master's failures opened it for every key: the healthy
// masters' keys were decided by the fallback too.
//
// Not parallel: its 24 workers keep both cores busy, which would starve
// the timing-sensitive tests running beside it.
func TestLostMasterOpensOnlyItsBreaker(t *testing.T) {
	nodes := startCluster(t)
	// The lost master refuses at once, whatever the timeouts. The live
	// ones get a read timeout a busy machine does not exhaust (each call's
	// 1 s deadline still bounds it): with the client's 250 ms, one stall
	// of a server or of this process can fail every call in flight on a
	// healthy master, five or more in a row, and open its breaker.
	opts := redisstore.ClientOptions(nodes[0].addr(), nodes[1].addr(), nodes[2].addr())
	opts.ReadTimeout = 2 * time.Second
	rdb := redis.NewUniversalClient(opts)
	t.Cleanup(func() { _ = rdb.Close() })
	ctx := context.Background()
	rs, err := redisstore.New(rdb)
	require.NoError(t, err)

	// Eight keys per master; short keys are their own hash tag.
	byNode := make([][]string, 3)
	nodeOf := map[string]int{}
	for i := 0; len(byNode[0]) < 8 || len(byNode[1]) < 8 || len(byNode[2]) < 8; i++ {
		key := fmt.Sprint("user-", i)
		slot, err := rdb.ClusterKeySlot(ctx, key).Result()
		require.NoError(t, err)
		n := 0
		for int(slot) >= firstSlot(n+1) {
			n++
		}
		byNode[n] = append(byNode[n], key)
		nodeOf[key] = n
	}
	var tripped, failed, decided [3]atomic.Int64
	var changes breakertest.Log
	store, err := resilient.New(rs, resilient.WithFallback(1), resilient.WithOpenInterval(200*time.Millisecond),
		resilient.WithOnFallback(func(key string, cause error) {
			if errors.Is(cause, resilient.ErrCircuitOpen) {
				tripped[nodeOf[key]].Add(1)
			} else {
				failed[nodeOf[key]].Add(1)
			}
		}),
		resilient.WithOnStateChange(changes.Record))
	require.NoError(t, err)
	ps := []core.Policy{core.Per(1_000_000, time.Hour).Using(core.FixedWindow)}
	take := func(key string) {
		ctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		if _, err := store.Take(ctx, key, ps, 1, time.Now()); err == nil {
			decided[nodeOf[key]].Add(1)
		}
	}
	for _, keys := range byNode { // the client learns the slot map
		for _, k := range keys {
			_, err := store.Take(ctx, k, ps, 1, time.Now())
			require.NoError(t, err, k)
		}
	}
	require.Equal(t, resilient.Closed, store.State())

	nodes[2].stop()
	end := time.Now().Add(1500 * time.Millisecond)
	var wg sync.WaitGroup
	for g := range 8 { // the lost master's keys
		wg.Go(func() {
			for time.Now().Before(end) {
				take(byNode[2][g])
				time.Sleep(time.Millisecond) // the fallback answers at once: leave the CPU to the others
			}
		})
	}
	for g := range 16 { // the other masters' keys
		wg.Go(func() {
			for time.Now().Before(end) {
				take(byNode[g%2][g/2])
			}
		})
	}
	seen := breakertest.Watch(&wg, store, end)
	wg.Wait()

	healthy := decided[0].Load() + decided[1].Load()
	t.Logf("healthy masters' keys: %d Redis decisions, %d fallbacks (breaker open), %d fallbacks (Redis error); "+
		"lost master's keys: %d fallbacks (breaker open), %d fallbacks (Redis error)",
		healthy, tripped[0].Load()+tripped[1].Load(), failed[0].Load()+failed[1].Load(), tripped[2].Load(), failed[2].Load())
	assert.Zero(t, tripped[0].Load()+tripped[1].Load(), "no healthy master's key met an open breaker")
	assert.LessOrEqual(t, 100*(failed[0].Load()+failed[1].Load()), healthy, "at most one healthy call in 100 failed")
	assert.Greater(t, healthy, int64(500))
	assert.Positive(t, tripped[2].Load(), "the lost master's keys tripped its breaker")
	// Calls that reached the lost master: the failures that opened its
	// breaker (5 in a row, plus those of the 8 workers already on their
	// way), then one probe per open interval (200 ms of 1.5 s), doubled
	// for slack. Without a breaker for it, every call of 1.5 s would.
	const reachedBound = 5 + 8 + 2*(1500/200+1)
	assert.LessOrEqual(t, failed[2].Load(), int64(reachedBound), "the lost master is probed once per open interval")
	assert.True(t, seen.Opened(), "State reported Open")
	assert.False(t, seen.ClosedAfterOpen(), "State did not report Closed while the master was lost")

	// Keep asking for the lost master's keys while it restarts (which
	// takes seconds on a loaded machine), as a service would: a breaker
	// nobody asks for 10 open intervals is forgotten as stale, and State
	// would close without the master being back.
	keepAsking := make(chan struct{})
	var asking sync.WaitGroup
	asking.Go(func() {
		for {
			select {
			case <-keepAsking:
				return
			case <-time.After(50 * time.Millisecond):
				take(byNode[2][0])
			}
		}
	})
	nodes[2].restart()
	close(keepAsking)
	asking.Wait()
	require.Eventually(t, func() bool {
		for _, k := range byNode[2] {
			take(k)
		}
		return store.State() == resilient.Closed
	}, 15*time.Second, 20*time.Millisecond, "State closes once the master is back")
	got := changes.List()
	require.NotEmpty(t, got)
	assert.Equal(t, "closed->open", got[0])
	assert.Equal(t, "half-open->closed", got[len(got)-1])
	for _, c := range got[:len(got)-1] {
		assert.NotEqual(t, "half-open->closed", c, "State closed only once the master was back: %v", got)
	}
}
