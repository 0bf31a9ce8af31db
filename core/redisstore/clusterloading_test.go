package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"os"
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
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// One master of a Cluster of three restarts and loads its dataset for
// seconds, answering CLUSTERDOWN (its cluster state is not ok until it has
// loaded) or LOADING. The calls for the other masters' keys are decided
// meanwhile, every one, within its deadline; the calls for its keys are
// retried and fail by their deadline, uncharged, with an error that
// matches context.DeadlineExceeded (or os.ErrDeadlineExceeded, when a
// batch ahead of it went unanswered for the read timeout) and (for those that were sent) keeps
// that answer; Check names no setup mistake; behind
// core/resilient, the loading master's keys open no breaker of the others.
// Once it has loaded, the same store decides its keys again, on the counts
// its dataset held, and every charge acknowledged meanwhile is there once;
// Check passes.
func TestClusterMasterLoading(t *testing.T) {
	// A node timeout well above the loading time: the others must not
	// mark the loading master failed, which would take the whole cluster
	// down (CLUSTERDOWN) and hide what the store does.
	const nodeTimeout = 60 * time.Second
	cl := testredis.StartCluster(t, 3, 0, nodeTimeout)
	client := redis.NewUniversalClient(redisstore.ClientOptions(cl.Addrs()...))
	t.Cleanup(func() { _ = client.Close() })
	// Every call and Peek at one instant: the counts are compared exactly.
	rs, err := redisstore.New(client, redisstore.WithPrefix(testredis.Prefix(t)), redisstore.WithClientTime())
	require.NoError(t, err)
	at := time.Now()
	ctx := context.Background()
	const limit = 1_000_000
	ps := policies(t, core.Per(limit, time.Hour))

	// keys[i]: keys of cl.Masters[i]'s slots (StartCluster gives master i
	// the i-th third of them).
	keys := make([][]string, 3)
	for i := 0; len(keys[0]) < 6 || len(keys[1]) < 6 || len(keys[2]) < 6; i++ {
		k := "key" + strconv.Itoa(i)
		slot := int(client.ClusterKeySlot(ctx, k).Val())
		m := min(slot/(16384/3), 2)
		keys[m] = append(keys[m], k)
	}
	const lm = 1 // the master that loads
	before := map[string]int64{}
	for _, ks := range keys {
		for _, k := range ks[:4] {
			for range 3 {
				_, err := rs.Take(ctx, k, ps, 1, at)
				require.NoError(t, err)
			}
			before[k] = 3
		}
	}
	require.NoError(t, rs.Check(ctx))

	args := []string{"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
		"--cluster-node-timeout", strconv.FormatInt(nodeTimeout.Milliseconds(), 10)}
	srv := cl.Masters[lm].RestartLoading(t, args...)
	restarted := time.Now()
	// The client's connections to the stopped process are gone: call
	// until the store meets the loading server, which answers LOADING, or
	// CLUSTERDOWN: Redis checks the node's cluster state first, and a
	// restarted node's is not ok until it has loaded.
	for {
		c, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		_, err := rs.Take(c, keys[lm][5], ps, 1, at)
		cancel()
		if notNow(err) {
			break
		}
		require.Less(t, time.Since(restarted), 3*time.Second, "the store never met the loading master: %v", err)
	}

	// Calls for every master's keys, from 12 goroutines, for a second:
	// the loading master's under a deadline of 300 ms, the others' under
	// one a busy test machine cannot run out (they must all be decided).
	const deadline, healthyDeadline = 300 * time.Millisecond, 5 * time.Second
	var (
		mu      sync.Mutex
		acked   = map[string]int64{}
		fails   = map[string][]error{}
		slowest time.Duration
		// slowestCall says which call was the slowest, and its error.
		slowestCall string
	)
	var stop atomic.Bool
	var wg sync.WaitGroup
	for m, ks := range keys {
		for _, k := range ks[:4] {
			wg.Go(func() {
				d := healthyDeadline
				if m == lm {
					d = deadline
				}
				for !stop.Load() {
					c, cancel := context.WithTimeout(ctx, d)
					start := time.Now()
					r, err := rs.Take(c, k, ps, 1, at)
					took := time.Since(start)
					cancel()
					mu.Lock()
					if m == lm && took > slowest {
						slowest, slowestCall = took, fmt.Sprintf("key %s of master %d: %v", k, m, err)
					}
					if err != nil {
						fails[k] = append(fails[k], err)
					} else if r.States[0].Allowed {
						acked[k]++
					}
					mu.Unlock()
					if m == lm && err == nil {
						return // loaded early: the assertions below say so
					}
				}
			})
		}
	}
	time.Sleep(time.Second) // the calls run meanwhile; nothing to wait for
	stop.Store(true)
	wg.Wait()

	for m, ks := range keys {
		for _, k := range ks[:4] {
			if m != lm {
				assert.Empty(t, fails[k], "key %s of a master that did not restart", k)
				assert.Positive(t, acked[k], "key %s decided", k)
				continue
			}
			assert.Zero(t, acked[k], "key %s of the loading master decided", k)
			require.NotEmpty(t, fails[k], "key %s", k)
		}
	}
	answers := map[string]int{} // Redis's answers the errors keep
	for _, k := range keys[lm][:4] {
		for _, err := range fails[k] {
			// Its deadline, or the queue's bound (a batch ahead of it
			// unanswered for the client's read timeout): uncharged either way.
			require.True(t, errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded), "key %s: %v", k, err)
			assert.NotErrorIs(t, err, redisstore.ErrMisconfigured)
			var answer redis.Error
			if notNow(err) && errors.As(err, &answer) {
				answers[strings.Fields(answer.Error())[0]]++
			}
		}
	}
	assert.NotEmpty(t, answers, "the errors keep Redis's answer")
	assert.Less(t, slowest, deadline+500*time.Millisecond, "no call of the loading master outlived its deadline by much: %s", slowestCall)
	t.Logf("while loading: slowest call %v (%s); %d calls of the loading master failed, keeping the answers %v",
		slowest.Round(time.Millisecond), slowestCall, countAll(fails, keys[lm][:4]), answers)

	cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	err = rs.Check(cctx)
	cancel()
	t.Logf("Check while a master loads: %v", err)
	require.Error(t, err)
	assert.NotErrorIs(t, err, redisstore.ErrMisconfigured)
	assert.True(t, notNow(err), "Redis's answer: %v", err)

	// Behind core/resilient: the loading master's keys (a burst of them)
	// open no breaker of the other masters, whose keys Redis decides.
	healthy := append(append([]string(nil), keys[0][4:]...), keys[2][4:]...)
	gs, tripped := guarded(t, rs, healthy)
	var loadingBurst []string
	for range 8 {
		loadingBurst = append(loadingBurst, keys[lm][4:]...)
	}
	burst(ctx, gs, ps, loadingBurst)
	for _, k := range healthy {
		_, err := gs.Take(ctx, k, ps, 1, at)
		assert.NoError(t, err, "key %s", k)
	}
	assert.Zero(t, tripped.Load(), "keys of healthy masters met an open breaker")
	require.Less(t, time.Since(restarted), 8*time.Second, "the test ran past the loading time (10 s): the master may have loaded already")

	srv.End(t)
	// A master that has just loaded answers CLUSTERDOWN for a moment
	// (Redis's own delay before a restarted master takes writes): the
	// store retries that within the deadline.
	for _, k := range keys[lm][:4] {
		c, cancel := context.WithTimeout(ctx, 5*time.Second)
		r, err := rs.Take(c, k, ps, 1, at)
		cancel()
		require.NoError(t, err, "key %s once its master has loaded", k)
		require.True(t, r.States[0].Allowed)
		acked[k]++
	}
	require.NoError(t, rs.Check(ctx), "Check passes once the master has loaded")
	for _, ks := range keys {
		for _, k := range ks[:4] {
			r, err := rs.Peek(ctx, k, ps, 1, at)
			require.NoError(t, err)
			assert.Equal(t, before[k]+acked[k], limit-r.States[0].Remaining,
				"key %s: the counts before the restart and every charge acknowledged since, once", k)
		}
	}
}

// notNow reports whether err keeps a restarted cluster master's answer
// while it loads its dataset: LOADING, or CLUSTERDOWN.
func notNow(err error) bool {
	return redis.HasErrorPrefix(err, "LOADING") || redis.HasErrorPrefix(err, "CLUSTERDOWN")
}

// countAll returns how many errors fails holds for keys.
func countAll(fails map[string][]error, keys []string) int {
	n := 0
	for _, k := range keys {
		n += len(fails[k])
	}
	return n
}
