package redisstore_test

import (
	"context"
	"os"
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

// loadingServer returns a private Redis that is loading its dataset
// after a restart (it answers LOADING), in which key was charged three
// times by a store with prefix for ps.
func loadingServer(t *testing.T, prefix, key string, ps []core.Policy) *testredis.Loading {
	t.Helper()
	return testredis.StartLoading(t, func(ctx context.Context, c *redis.Client) error {
		s, err := redisstore.New(c, redisstore.WithPrefix(prefix))
		if err != nil {
			return err
		}
		for range 3 {
			if _, err := s.Take(ctx, key, ps, 1, time.Now()); err != nil {
				return err
			}
		}
		return nil
	})
}

// A call made while Redis loads its dataset after a restart (it answers
// LOADING) is retried, and decided once the loading ends, within its
// deadline: exactly, on the counts the dataset held, charged once.
func TestLoadingIsRetriedUntilLoaded(t *testing.T) {
	prefix, ps := testredis.Prefix(t), policies(t, core.PerMinute(10))
	srv := loadingServer(t, prefix, "k", ps)
	client := redis.NewUniversalClient(redisstore.ClientOptions(srv.Addr))
	t.Cleanup(func() { _ = client.Close() })
	log := &answerLog{prefix: "LOADING", onFirst: func() {
		// Loading goes on for a few more attempts, then ends.
		time.AfterFunc(150*time.Millisecond, func() { _ = srv.Finish(context.Background()) })
	}}
	client.AddHook(log)
	s, err := redisstore.New(client, redisstore.WithPrefix(prefix))
	require.NoError(t, err)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	start := time.Now()
	r, err := s.Take(ctx, "k", ps, 1, time.Now())
	took := time.Since(start)
	require.NoError(t, err)
	t.Logf("decided after %v and %d LOADING answers", took.Round(time.Millisecond), log.count("LOADING"))
	assert.GreaterOrEqual(t, log.count("LOADING"), 2, "the call met LOADING and was retried")
	assert.True(t, r.States[0].Allowed)
	assert.Equal(t, int64(6), r.States[0].Remaining, "the three charges before the restart, and this one, once")
}

// A call whose deadline ends while Redis still loads returns by its
// deadline, uncharged, with an error that says the deadline ended
// (context.DeadlineExceeded); with no deadline, the retries end after
// their budget with an error that says so (os.ErrDeadlineExceeded) and
// keeps Redis's answer. (A deadline that cuts an attempt short leaves no
// answer to keep: the error then keeps the client's.) On a
// client that bounds its waits by the context's deadline (ClientOptions)
// the call runs on the caller's goroutine, on go-redis's defaults on one
// of its own: both end alike. Before, the retries ended a few
// milliseconds short of the deadline and the call returned Redis's bare
// LOADING answer, which named no deadline. The test counts the attempts,
// which a busy machine cannot raise, and bounds the time only loosely.
func TestLoadingPastTheDeadline(t *testing.T) {
	clients := map[string]func(addr string) redis.UniversalClient{
		"ClientOptions": func(addr string) redis.UniversalClient {
			return redis.NewUniversalClient(redisstore.ClientOptions(addr))
		},
		"go-redis defaults": func(addr string) redis.UniversalClient {
			return redis.NewClient(&redis.Options{Addr: addr})
		},
	}
	for name, newClient := range clients {
		t.Run(name, func(t *testing.T) {
			prefix, ps := testredis.Prefix(t), policies(t, core.PerMinute(10))
			srv := loadingServer(t, prefix, "k", ps)
			client := newClient(srv.Addr)
			t.Cleanup(func() { _ = client.Close() })
			sent := &scriptCalls{}
			client.AddHook(sent)
			s, err := redisstore.New(client, redisstore.WithPrefix(prefix))
			require.NoError(t, err)

			for _, deadline := range []time.Duration{30 * time.Millisecond, 300 * time.Millisecond} {
				ctx, cancel := context.WithTimeout(context.Background(), deadline)
				start, before := time.Now(), sent.n.Load()
				_, err := s.Take(ctx, "k", ps, 1, time.Now())
				took, attempts := time.Since(start), int(sent.n.Load()-before)
				cancel()
				t.Logf("deadline %v: returned after %v and %d attempts: %v", deadline, took.Round(time.Millisecond), attempts, err)
				require.Error(t, err)
				assert.ErrorIs(t, err, context.DeadlineExceeded, "the caller can tell its deadline ended")
				assert.LessOrEqual(t, attempts, maxAttempts(deadline), "no attempt after the deadline")
				assert.Less(t, took, deadline+3*time.Second, "returned about its deadline, not when Redis has loaded (10 s)")
			}
			// With no deadline, the retries end after their budget.
			start, before := time.Now(), sent.n.Load()
			_, err = s.Take(context.Background(), "k", ps, 1, time.Now())
			took, attempts := time.Since(start), int(sent.n.Load()-before)
			t.Logf("no deadline: returned after %v and %d attempts: %v", took.Round(time.Millisecond), attempts, err)
			require.Error(t, err)
			assert.ErrorIs(t, err, os.ErrDeadlineExceeded, "the store's own bound ended the call")
			assert.Contains(t, err.Error(), "LOADING", "Redis's answer is kept")
			assert.LessOrEqual(t, attempts, maxAttempts(500*time.Millisecond), "no attempt after the retry budget")
			assert.Less(t, took, 3500*time.Millisecond, "returned after the retry budget, not when Redis has loaded (10 s)")

			srv.End(t)
			r, err := s.Peek(context.Background(), "k", ps, 1, time.Now())
			require.NoError(t, err)
			assert.Equal(t, int64(7), r.States[0].Remaining, "no call that met LOADING was charged")
		})
	}
}

// maxAttempts is the most attempts a call retried within d makes: the
// store waits 1 ms before its first retry, twice as long before each
// next one, at most 50 ms, and makes no attempt that would start past d.
// A busy machine only makes fewer; a call retried past d makes more.
func maxAttempts(d time.Duration) int {
	n, waited := 1, time.Duration(0)
	for wait := time.Millisecond; ; wait = min(2*wait, 50*time.Millisecond) {
		if waited += wait; waited >= d {
			return n
		}
		n++
	}
}

// scriptCalls counts the script calls (EVALSHA, EVAL) a client sends.
type scriptCalls struct{ n atomic.Int64 }

func (h *scriptCalls) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *scriptCalls) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if n := cmd.Name(); n == "evalsha" || n == "eval" {
			h.n.Add(1)
		}
		return next(ctx, cmd)
	}
}

func (h *scriptCalls) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// Check on a Redis loading its dataset (a restart with persistence, as a
// deployment may meet) is a Redis not ready yet, not a misconfiguration:
// the service may start, and Check passes once the loading ends.
func TestCheckWhileLoading(t *testing.T) {
	srv := loadingServer(t, testredis.Prefix(t), "k", policies(t, core.PerMinute(10)))
	client := redis.NewUniversalClient(patient(redisstore.ClientOptions(srv.Addr)))
	t.Cleanup(func() { _ = client.Close() })
	checkWhileLoading(t, client, srv)
}

// The same with a cluster client, whose one node (a cluster of one) is
// loading: its CLUSTER SHARDS is answered LOADING too. (Once loaded, a
// restarted cluster master answers CLUSTERDOWN for 2 s, Redis's own
// delay before it takes writes again: Check retries until it passes.)
func TestClusterCheckWhileLoading(t *testing.T) {
	srv := testredis.SingleNodeCluster(t).RestartLoading(t, "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf")
	client := redis.NewClusterClient(patient(redisstore.ClientOptions(srv.Addr)).Cluster())
	t.Cleanup(func() { _ = client.Close() })
	checkWhileLoading(t, client, srv)
}

// patient gives opts timeouts a loaded test machine cannot run out: a
// loading Redis answers only between its chunks of loading, and with the
// store's 250 ms a busy machine turned its LOADING into an i/o timeout,
// which is not what these tests are about.
func patient(opts *redis.UniversalOptions) *redis.UniversalOptions {
	opts.DialTimeout, opts.ReadTimeout, opts.WriteTimeout = 2*time.Second, 2*time.Second, 2*time.Second
	return opts
}

// checkWhileLoading runs Check on a store over client while srv loads its
// dataset, and again once it has loaded: not ready yet, then passed.
func checkWhileLoading(t *testing.T, client redis.UniversalClient, srv *testredis.Loading) {
	t.Helper()
	s, err := redisstore.New(client)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	start := time.Now()
	err = s.Check(ctx)
	t.Logf("Check while loading, after %v: %v", time.Since(start).Round(time.Millisecond), err)
	require.Error(t, err)
	assert.NotErrorIs(t, err, redisstore.ErrMisconfigured)
	assert.Contains(t, err.Error(), "LOADING")
	srv.End(t)
	ctx, cancel = context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	require.NoError(t, s.Check(ctx))
}
