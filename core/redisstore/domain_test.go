package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
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
	"github.com/ratewindow/ratewindow/internal/testredis"
)

var _ resilient.Domainer = (*redisstore.Store)(nil)

// On a Cluster a key's domain is the address of the master that serves
// the slot of its Redis keys, once the store has the slot map; on a
// standalone Redis every key has the one domain "".
func TestDomain(t *testing.T) {
	ctx := context.Background()
	ps := policies(t, core.Per(100, time.Hour))

	s, _ := store(t, testredis.Standalone(t))
	_, err := s.Take(ctx, "k", ps, 1, base)
	require.NoError(t, err)
	assert.Equal(t, "", s.Domain("k"), "standalone")

	cluster := testredis.Cluster(t)
	s, prefix := store(t, cluster)
	assert.Equal(t, "", s.Domain("k"), "no slot map yet")
	shards, err := cluster.ClusterShards(ctx).Result()
	require.NoError(t, err)
	masterOf := func(slot int64) string {
		for _, sh := range shards {
			for _, r := range sh.Slots {
				if r.Start <= slot && slot <= r.End {
					for _, n := range sh.Nodes {
						if n.Role == "master" {
							return net.JoinHostPort(n.IP, strconv.FormatInt(n.Port, 10))
						}
					}
				}
			}
		}
		t.Fatalf("no master serves slot %d", slot)
		return ""
	}
	seen := map[string]bool{}
	keys := []string{strings.Repeat("long key ", 10), "{braces}"}
	for i := range 12 {
		keys = append(keys, fmt.Sprint("user-", i))
	}
	for _, k := range keys {
		// The Redis key the store wrote for k tells its slot.
		require.Empty(t, prefixKeys(t, cluster, prefix))
		_, err := s.Take(ctx, k, ps, 1, base)
		require.NoError(t, err)
		written := prefixKeys(t, cluster, prefix)
		require.Len(t, written, 1)
		slot, err := cluster.ClusterKeySlot(ctx, written[0]).Result()
		require.NoError(t, err)
		assert.Equal(t, masterOf(slot), s.Domain(k), "key %q in slot %d", k, slot)
		seen[s.Domain(k)] = true
		require.NoError(t, s.Reset(ctx, k, ps))
	}
	assert.Len(t, seen, 3, "the keys spread over the three masters")
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = s.Domain("user-1") }))
}

// Behind resilient.New, a Cluster master that stops answering opens only
// its own keys' breaker: the keys of the other masters keep getting
// decisions from Redis, never ErrCircuitOpen nor the fallback, while
// State reports the store not fully trusted (Open, or HalfOpen while the
// stalled master's probe runs). Once the master answers again, its probe
// closes its breaker and State is Closed. With one breaker for the whole
// Cluster, the healthy masters' answers kept resetting its count of
// consecutive failures: it never opened, and every call for the stalled
// master's keys waited out its timeout.
//
// A stalled machine delays the answers of the healthy masters too: if
// five of a healthy master's calls in a row outlive their deadline, its
// own breaker opens, rightly. So a healthy key may meet an open breaker
// only after calls of its own master failed, five at least; with one
// breaker for the Cluster, or the stalled master's failures counted
// against a healthy master, they meet it with none.
func TestStalledMasterOpensOnlyItsBreaker(t *testing.T) {
	cl, rs, keys := threeMasters(t)
	ctx := context.Background()
	ps := policies(t, core.Per(1_000_000, time.Hour))
	masterOf := map[string]int{}
	for m, ks := range keys {
		for _, k := range ks {
			masterOf[k] = m
		}
	}
	const threshold = 5                 // resilient's default
	var tripped, failed [3]atomic.Int64 // fallback decisions: breaker open, primary error
	var errs sync.Map                   // the healthy masters' errors, by message
	var hook breakertest.Log
	s, err := resilient.New(rs, resilient.WithFallback(1),
		resilient.WithOnFallback(func(key string, cause error) {
			m := masterOf[key]
			if errors.Is(cause, resilient.ErrCircuitOpen) {
				tripped[m].Add(1)
				return
			}
			failed[m].Add(1)
			if m != 0 {
				errs.Store(cause.Error(), true)
			}
		}),
		resilient.WithOnStateChange(hook.Record))
	require.NoError(t, err)
	for _, ks := range keys { // the client learns the slot map
		for _, k := range ks {
			_, err := s.Take(ctx, k, ps, 1, time.Now())
			require.NoError(t, err)
		}
	}
	require.Equal(t, resilient.Closed, s.State())

	const pause = 3 * time.Second
	require.NoError(t, cl.Masters[0].Client(t).Do(ctx, "CLIENT", "PAUSE", pause.Milliseconds(), "ALL").Err())
	paused := time.Now()
	resumed := paused.Add(pause)

	// A call for the stalled master's keys fails at its 1 s deadline, so
	// its breaker opens about a second in, later on a stalled machine. The
	// load runs 1.5 s, and on until those keys have met the open breaker
	// a hundred times, but stops half a second before the master answers.
	least, most := paused.Add(1500*time.Millisecond), resumed.Add(-500*time.Millisecond)
	running := func() bool {
		now := time.Now()
		return now.Before(least) || (tripped[0].Load() < 100 && now.Before(most))
	}
	var decided [3]atomic.Int64
	take := func(k string) {
		c, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		if _, err := s.Take(c, k, ps, 1, time.Now()); err == nil {
			decided[masterOf[k]].Add(1)
		}
	}
	var wg sync.WaitGroup
	for g := range 8 { // the stalled master's keys
		wg.Go(func() {
			for running() {
				take(keys[0][g])
				time.Sleep(time.Millisecond) // the fallback answers at once: leave the CPU to the others
			}
		})
	}
	for g := range 16 { // the other masters' keys
		wg.Go(func() {
			for running() {
				take(keys[1+g%2][g/2])
			}
		})
	}
	seen := breakertest.WatchWhile(&wg, s, running) // State while the master is stalled
	wg.Wait()

	healthy := decided[1].Load() + decided[2].Load()
	t.Logf("load for %v; healthy masters' keys: %d Redis decisions, %d+%d fallbacks (breaker open), %d+%d fallbacks (Redis error); "+
		"stalled master's keys: %d Redis decisions, %d fallbacks (breaker open), %d fallbacks (Redis error)",
		time.Since(paused).Round(time.Millisecond), healthy, tripped[1].Load(), tripped[2].Load(), failed[1].Load(), failed[2].Load(),
		decided[0].Load(), tripped[0].Load(), failed[0].Load())
	errs.Range(func(msg, _ any) bool {
		t.Logf("a healthy master's call failed: %v", msg)
		return true
	})
	for m := 1; m <= 2; m++ {
		if tripped[m].Load() > 0 {
			assert.GreaterOrEqual(t, failed[m].Load(), int64(threshold), "master %d's keys met an open breaker, but fewer of their own calls failed than open it", m)
		}
	}
	assert.LessOrEqual(t, 100*(failed[1].Load()+failed[2].Load()), healthy, "at most one healthy call in 100 failed")
	assert.Greater(t, healthy, int64(500))
	assert.Positive(t, tripped[0].Load(), "the stalled master's keys tripped its breaker")
	assert.True(t, seen.Opened(), "State reported Open")
	assert.False(t, seen.ClosedAfterOpen(), "State did not report Closed while the master was stalled")
	require.NotEmpty(t, hook.List())
	assert.Equal(t, "closed->open", hook.List()[0])

	// The master answers again: its keys' next probe closes the breaker.
	// Every key is called, so that a healthy master's breaker that a
	// stalled machine opened gets its probe too.
	time.Sleep(time.Until(resumed))
	require.Eventually(t, func() bool {
		for _, ks := range keys {
			for _, k := range ks {
				take(k)
			}
		}
		return s.State() == resilient.Closed
	}, 10*time.Second, 20*time.Millisecond)
	got := hook.List()
	assert.Equal(t, "half-open->closed", got[len(got)-1])
	for _, c := range got[:len(got)-1] {
		assert.NotEqual(t, "half-open->closed", c, "State closed only once the master answered: %v", got)
	}
}

// A slot that no master serves (its master forgotten, its slots deleted)
// has one domain, "no master", once Redis has answered a call for it that
// the slot is not served: the cluster client would name a random node for
// it on each lookup, so its keys' failures would land in the breakers of
// healthy masters. Once the slot is served again, its keys' domain is
// their new master.
func TestDomainSlotWithoutMaster(t *testing.T) {
	cl := testredis.StartCluster(t, 3, 0, 5*time.Second)
	client := redis.NewClusterClient(&redis.ClusterOptions{Addrs: cl.Addrs(), MaxRedirects: 8,
		ReadTimeout: 250 * time.Millisecond, MaxRetryBackoff: 20 * time.Millisecond})
	t.Cleanup(func() { _ = client.Close() })
	s, err := redisstore.New(client, redisstore.WithPrefix(testredis.Prefix(t)))
	require.NoError(t, err)
	ctx := context.Background()
	require.NoError(t, s.Check(ctx))
	admins := make([]*redis.Client, len(cl.Masters))
	for i, m := range cl.Masters {
		admins[i] = m.Client(t)
		// The other slots stay served while one is not.
		require.NoError(t, admins[i].ConfigSet(ctx, "cluster-require-full-coverage", "no").Err())
	}
	ps := policies(t, core.PerMinute(100))
	const key = "lost"
	slot, err := client.ClusterKeySlot(ctx, key).Result()
	require.NoError(t, err)
	_, err = s.Take(ctx, key, ps, 1, time.Now())
	require.NoError(t, err)
	owner := s.Domain(key)
	require.NotEmpty(t, owner)

	assigned := func(n int) func() bool {
		return func() bool {
			for _, a := range admins {
				info, err := a.ClusterInfo(ctx).Result()
				if err != nil || !strings.Contains(info, fmt.Sprintf("cluster_slots_assigned:%d\r", n)) {
					return false
				}
			}
			return true
		}
	}
	for _, a := range admins {
		require.NoError(t, a.ClusterDelSlots(ctx, int(slot)).Err())
	}
	require.Eventually(t, assigned(16383), 10*time.Second, 20*time.Millisecond)
	client.ReloadState(ctx)

	short := func() error {
		c, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		defer cancel()
		_, err := s.Take(c, key, ps, 1, time.Now())
		return err
	}
	err = short()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not served")
	for range 30 {
		require.Equal(t, "no master", s.Domain(key), "slot %d, formerly on %s", slot, owner)
	}
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = s.Domain(key) }))
	other := "user-1"
	require.NoError(t, func() error { _, err := s.Take(ctx, other, ps, 1, time.Now()); return err }())
	assert.NotEqual(t, "no master", s.Domain(other), "a served slot keeps its master's domain")

	// The slot is served again, by another master.
	next := 0
	for i, m := range cl.Masters {
		if m.Addr != owner {
			next = i
		}
	}
	require.NoError(t, admins[next].ClusterAddSlots(ctx, int(slot)).Err())
	require.Eventually(t, assigned(16384), 10*time.Second, 20*time.Millisecond)
	require.Eventually(t, func() bool { return short() == nil }, 10*time.Second, 20*time.Millisecond)
	require.Eventually(t, func() bool { return s.Domain(key) == cl.Masters[next].Addr }, 10*time.Second, 20*time.Millisecond)
}
