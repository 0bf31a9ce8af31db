package redisstore_test

import (
	"context"
	"errors"
	"fmt"
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
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// partialCluster starts a private Cluster of three masters that keep
// serving their slots while others have no master
// (cluster-require-full-coverage no), and returns it with an admin client
// per master.
func partialCluster(t *testing.T) (*testredis.PrivateCluster, []*redis.Client) {
	t.Helper()
	cl := testredis.StartCluster(t, 3, 0, 5*time.Second)
	admins := make([]*redis.Client, len(cl.Masters))
	for i, m := range cl.Masters {
		admins[i] = m.Client(t)
		require.NoError(t, admins[i].ConfigSet(context.Background(), "cluster-require-full-coverage", "no").Err())
	}
	return cl, admins
}

// delSlots deletes the slots first..last on every master, so that no
// master serves them, and waits until every master says so.
func delSlots(t *testing.T, admins []*redis.Client, first, last int) {
	t.Helper()
	ctx := context.Background()
	for _, a := range admins {
		require.NoError(t, a.ClusterDelSlotsRange(ctx, first, last).Err())
	}
	want := fmt.Sprintf("cluster_slots_assigned:%d\r", 16384-(last-first+1))
	require.Eventually(t, func() bool {
		for _, a := range admins {
			info, err := a.ClusterInfo(ctx).Result()
			if err != nil || !strings.Contains(info, want) {
				return false
			}
		}
		return true
	}, 10*time.Second, 20*time.Millisecond)
}

// keysOf returns n keys (each its own hash tag) whose slots are in
// first..last, or out of it when in is false.
func keysOf(t *testing.T, c redis.UniversalClient, n, first, last int, in bool) []string {
	t.Helper()
	var keys []string
	for i := 0; len(keys) < n; i++ {
		k := fmt.Sprint("user-", i)
		slot := int(c.ClusterKeySlot(context.Background(), k).Val())
		if (first <= slot && slot <= last) == in {
			keys = append(keys, k)
		}
	}
	return keys
}

// A client that loads its slot map while some slots have no master (a
// cluster still assigning them, a master removed) sends their keys to a
// random node, with no error: Domain must not name that node, or the
// failures of those keys count against a healthy master's breaker. The
// keys of the unserved slots have the domain "no master" from the moment
// the store names any master, before any call for them; behind
// resilient.New, hammering them opens no healthy master's breaker. Before,
// Domain named a random master for them, and the failures of a burst of
// such calls opened the breakers of the healthy masters, whose keys then
// went to the fallback.
func TestDomainOfSlotsWithoutMasterInTheFirstMap(t *testing.T) {
	cl, admins := partialCluster(t)
	const first, last = 2 * (16384 / 3), 16383 // the third master's slots
	delSlots(t, admins, first, last)
	client := redis.NewUniversalClient(redisstore.ClientOptions(cl.Addrs()...))
	t.Cleanup(func() { _ = client.Close() })
	rs, err := redisstore.New(client, redisstore.WithPrefix(testredis.Prefix(t)))
	require.NoError(t, err)
	lost := keysOf(t, client, 200, first, last, true)
	served := keysOf(t, client, 16, first, last, false)
	ctx := context.Background()
	ps := policies(t, core.Per(1_000_000, time.Hour))

	for _, k := range lost {
		require.Equal(t, "", rs.Domain(k), "no slot map yet")
	}
	_, err = rs.Take(ctx, served[0], ps, 1, time.Now())
	require.NoError(t, err)
	for _, k := range lost {
		require.Equal(t, "no master", rs.Domain(k), "key %q of a slot no master serves", k)
	}
	for _, k := range served {
		require.Contains(t, []string{cl.Masters[0].Addr, cl.Masters[1].Addr}, rs.Domain(k), k)
	}

	s, tripped := guarded(t, rs, served)          // tripped: healthy keys that met an open breaker
	burst(ctx, s, ps, lost[1:min(len(lost), 40)]) // keys no master serves
	for _, k := range served {
		_, err := s.Take(ctx, k, ps, 1, time.Now())
		assert.NoError(t, err, "a healthy master's key %q is decided by Redis", k)
	}
	assert.Zero(t, tripped.Load(), "healthy masters' keys met an open breaker")

	// Check decides on every master, on slots they serve: the unserved
	// ones do not fail it.
	cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	assert.NoError(t, rs.Check(cctx))
}

// A slot that loses its master while the store runs, with the cluster
// client's map still naming that master, is noted at Redis's first answer
// that it is not served, and so are the slots that lost their master with
// it: not once the call's retries end, at its deadline. Meanwhile the
// calls for those slots' keys count against the breaker of the master the
// client names, which still serves other keys. Before, a burst of calls
// for the lost slots in that time opened that master's breaker, and its
// healthy keys went to the fallback.
func TestSlotWithoutMasterNotedAtFirstAnswer(t *testing.T) {
	cl, admins := partialCluster(t)
	client := redis.NewUniversalClient(redisstore.ClientOptions(cl.Addrs()...))
	t.Cleanup(func() { _ = client.Close() })
	rs, err := redisstore.New(client, redisstore.WithPrefix(testredis.Prefix(t)))
	require.NoError(t, err)
	const first, last = 2 * (16384 / 3), 2*(16384/3) + 999 // a thousand of the third master's slots
	lost := keysOf(t, client, 40, first, last, true)
	kept := keysOf(t, client, 8, last+1, 16383, true) // the third master keeps these
	ctx := context.Background()
	ps := policies(t, core.Per(1_000_000, time.Hour))
	s, tripped := guarded(t, rs, kept)                     // tripped: kept keys that met an open breaker
	for _, k := range append([]string{lost[0]}, kept...) { // the client learns the slot map
		_, err := s.Take(ctx, k, ps, 1, time.Now())
		require.NoError(t, err)
	}
	owner := cl.Masters[2].Addr
	require.Equal(t, owner, rs.Domain(lost[0]))

	delSlots(t, admins, first, last)
	done := make(chan error, 1)
	go func() {
		c, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		_, err := s.Take(c, lost[0], ps, 1, time.Now())
		done <- err
	}()
	require.Eventually(t, func() bool { return rs.Domain(lost[0]) == "no master" }, 1500*time.Millisecond, time.Millisecond,
		"the slot is noted at the first answer, while the call still retries")
	select {
	case err := <-done:
		t.Fatalf("the call ended before its deadline: %v", err)
	default:
	}
	require.Eventually(t, func() bool {
		for _, k := range lost {
			if rs.Domain(k) != "no master" {
				return false
			}
		}
		return true
	}, 1500*time.Millisecond, time.Millisecond, "the slots that lost their master with it are noted too")
	for _, k := range kept {
		require.Equal(t, owner, rs.Domain(k), "a slot its master kept")
	}

	burst(ctx, s, ps, lost[1:]) // the lost slots' keys
	for _, k := range kept {
		_, err := s.Take(ctx, k, ps, 1, time.Now())
		assert.NoError(t, err, "key %q, kept by its master, is decided by Redis", k)
	}
	assert.Zero(t, tripped.Load(), "kept keys met an open breaker")
	require.Error(t, <-done)
}

// guarded returns rs behind resilient.New with a local fallback, and the
// count of calls for the healthy keys that met an open breaker.
func guarded(t *testing.T, rs *redisstore.Store, healthy []string) (*resilient.Store, *atomic.Int64) {
	t.Helper()
	isHealthy := map[string]bool{}
	for _, k := range healthy {
		isHealthy[k] = true
	}
	tripped := new(atomic.Int64)
	s, err := resilient.New(rs, resilient.WithFallback(1), resilient.WithOnFallback(func(key string, cause error) {
		if isHealthy[key] && errors.Is(cause, resilient.ErrCircuitOpen) {
			tripped.Add(1)
		}
	}))
	require.NoError(t, err)
	return s, tripped
}

// burst calls Take once for each of keys from 8 goroutines at once, each
// call bounded to 100 ms, and returns when all are done.
func burst(ctx context.Context, s *resilient.Store, ps []core.Policy, keys []string) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < int64(len(keys)); i = next.Add(1) - 1 {
				c, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
				_, _ = s.Take(c, keys[i], ps, 1, time.Now())
				cancel()
			}
		})
	}
	wg.Wait()
}
