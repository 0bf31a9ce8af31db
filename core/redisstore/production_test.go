package redisstore_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/redisstore"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// optionsStore is the README's setup: a client from ClientOptions and a
// store on it, with opts after a prefix of its own.
func optionsStore(t *testing.T, addr string, opts ...redisstore.Option) (*redisstore.Store, redis.UniversalClient) {
	t.Helper()
	client := redis.NewUniversalClient(redisstore.ClientOptions(addr))
	t.Cleanup(func() { _ = client.Close() })
	s, err := redisstore.New(client, append([]redisstore.Option{redisstore.WithPrefix(testredis.Prefix(t))}, opts...)...)
	require.NoError(t, err)
	return s, client
}

// With ClientOptions a Redis that refuses connections costs a failed dial,
// not go-redis's five dials with backoff (1.7 s by default): every call,
// the first included, fails well under 50 ms, with no request deadline.
func TestClientOptionsRefusedFailsFast(t *testing.T) {
	s, _ := optionsStore(t, testredis.DeadAddr(t))
	ps := policies(t, core.PerMinute(10))
	var slowest time.Duration
	for range 20 {
		start := time.Now()
		_, err := s.Take(context.Background(), "k", ps, 1, time.Now())
		slowest = max(slowest, time.Since(start))
		require.Error(t, err)
	}
	t.Logf("slowest of 20 calls on a closed port: %v", slowest)
	assert.Less(t, slowest, 50*time.Millisecond)
}

// A Redis that accepts connections but never answers (CLIENT PAUSE) fails a
// call after the client's read timeout when the request has no deadline, and at the
// deadline when it has one.
func TestClientOptionsStalledFailsInTime(t *testing.T) {
	srv := testredis.Server(t)
	admin := srv.Client(t)
	s, _ := optionsStore(t, srv.Addr)
	ps := policies(t, core.PerMinute(10))
	ctx := context.Background()
	_, err := s.Take(ctx, "warm", ps, 1, time.Now())
	require.NoError(t, err)
	// Paused long enough for both calls below; every command of every
	// client, the admin's included, waits until then.
	require.NoError(t, admin.Do(ctx, "CLIENT", "PAUSE", 2000, "ALL").Err())

	start := time.Now()
	_, err = s.Take(ctx, "k", ps, 1, time.Now())
	took := time.Since(start)
	require.Error(t, err)
	timeout := redisstore.ClientOptions().ReadTimeout
	t.Logf("no deadline: failed after %v (ReadTimeout %v)", took, timeout)
	assert.GreaterOrEqual(t, took, timeout/2)
	assert.Less(t, took, timeout+750*time.Millisecond)

	dctx, cancel := context.WithTimeout(ctx, 80*time.Millisecond)
	defer cancel()
	start = time.Now()
	_, err = s.Take(dctx, "k", ps, 1, time.Now())
	took = time.Since(start)
	require.Error(t, err) // the socket's deadline is the context's: i/o timeout or deadline exceeded
	t.Logf("80 ms deadline: failed after %v", took)
	assert.Less(t, took, 80*time.Millisecond+500*time.Millisecond)
}

// Every decision is one EVALSHA from the first on: the client loads the
// scripts when it connects, so a fresh Redis never sees NOSCRIPT or EVAL.
func TestClientOptionsPreloadScripts(t *testing.T) {
	srv := testredis.Server(t)
	admin := srv.Client(t)
	ctx := context.Background()
	require.NoError(t, admin.ConfigResetStat(ctx).Err())
	s, _ := optionsStore(t, srv.Addr)
	one := policies(t, core.PerMinute(10))
	many := policies(t, core.PerMinute(10), core.PerHour(100).Named("h").Using(core.SlidingLog))
	for i := range 10 {
		_, err := s.Take(ctx, fmt.Sprint("k", i), one, 1, time.Now())
		require.NoError(t, err)
		_, err = s.Take(ctx, fmt.Sprint("k", i), many, 1, time.Now())
		require.NoError(t, err)
	}
	stats, err := admin.Info(ctx, "commandstats").Result()
	require.NoError(t, err)
	assert.NotContains(t, stats, "cmdstat_eval:", "no EVAL on a fresh server")
	assert.Contains(t, stats, "cmdstat_evalsha:calls=20,")
	assert.NotContains(t, stats, "failed_calls=1", "no NOSCRIPT")
}

func TestCheck(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	check := func(t *testing.T, c redis.UniversalClient) error {
		t.Helper()
		s, err := redisstore.New(c)
		require.NoError(t, err)
		return s.Check(ctx)
	}
	t.Run("standalone", func(t *testing.T) {
		require.NoError(t, check(t, testredis.Standalone(t)))
	})
	t.Run("cluster", func(t *testing.T) {
		require.NoError(t, check(t, testredis.Cluster(t)))
	})
	t.Run("one cluster node as standalone", func(t *testing.T) {
		c := redis.NewUniversalClient(redisstore.ClientOptions(testredis.ClusterAddrs(t)[0]))
		defer c.Close()
		err := check(t, c)
		require.ErrorIs(t, err, redisstore.ErrMisconfigured)
		assert.Contains(t, err.Error(), "cluster")
	})
	t.Run("cluster client on a standalone server", func(t *testing.T) {
		c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{testredis.Addr(t)}})
		defer c.Close()
		require.ErrorIs(t, check(t, c), redisstore.ErrMisconfigured)
	})
	t.Run("replica", func(t *testing.T) {
		m := testredis.Server(t)
		host, port, _ := strings.Cut(m.Addr, ":")
		r := testredis.ServerWith(t, "--replicaof", host, port)
		err := check(t, r.Client(t))
		require.ErrorIs(t, err, redisstore.ErrMisconfigured)
		assert.Contains(t, err.Error(), "replica")
	})
	t.Run("comma-joined addresses", func(t *testing.T) {
		c := redis.NewUniversalClient(redisstore.ClientOptions(strings.Join(testredis.ClusterAddrs(t), ",")))
		defer c.Close()
		_, err := redisstore.New(c)
		require.ErrorIs(t, err, redisstore.ErrMisconfigured)
		require.ErrorIs(t, err, core.ErrInvalidConfig)
	})
	// The Sentinel client hides its Sentinels' addresses from New; Check
	// finds the one that cannot be an address.
	t.Run("comma-joined Sentinel addresses", func(t *testing.T) {
		for _, addr := range []string{
			strings.Join([]string{testredis.Addr(t), testredis.Addr(t)}, ","),
			strings.Join([]string{testredis.Addr(t), testredis.Addr(t)}, ", "),
			"127.0.0.1,127.0.0.2:26379", // one port for the lot
		} {
			o := redisstore.ClientOptions(addr)
			o.MasterName = "ratewindow"
			c := redis.NewUniversalClient(o)
			defer c.Close()
			err := check(t, c)
			require.ErrorIs(t, err, redisstore.ErrMisconfigured, addr)
			assert.Contains(t, err.Error(), "host:port", addr)
			// A service that started anyway sees it named on every call.
			s, err := redisstore.New(c)
			require.NoError(t, err)
			_, err = s.Take(ctx, "k", policies(t, core.PerMinute(10)), 1, time.Now())
			require.ErrorIs(t, err, redisstore.ErrMisconfigured, addr)
		}
	})
	t.Run("Sentinels down", func(t *testing.T) {
		o := redisstore.ClientOptions(testredis.DeadAddr(t), testredis.DeadAddr(t))
		o.MasterName = "ratewindow"
		c := redis.NewUniversalClient(o)
		defer c.Close()
		err := check(t, c)
		require.Error(t, err)
		assert.NotErrorIs(t, err, redisstore.ErrMisconfigured, "an outage is no configuration error")
	})
	t.Run("redis down", func(t *testing.T) {
		c := redis.NewUniversalClient(redisstore.ClientOptions(testredis.DeadAddr(t)))
		defer c.Close()
		err := check(t, c)
		require.Error(t, err)
		assert.NotErrorIs(t, err, redisstore.ErrMisconfigured, "an outage is no configuration error")
	})
}

// A standalone client on one node of a cluster: keys of the other masters
// answer MOVED, which the store reports as a configuration error.
func TestMovedIsMisconfigured(t *testing.T) {
	c := redis.NewUniversalClient(redisstore.ClientOptions(testredis.ClusterAddrs(t)[0]))
	defer c.Close()
	s, err := redisstore.New(c, redisstore.WithPrefix(testredis.Prefix(t)))
	require.NoError(t, err)
	ps := policies(t, core.PerMinute(10))
	moved := 0
	for i := range 30 {
		_, err := s.Take(context.Background(), fmt.Sprint("k", i), ps, 1, time.Now())
		if err != nil {
			require.ErrorIs(t, err, redisstore.ErrMisconfigured)
			assert.Contains(t, err.Error(), "MOVED")
			moved++
		}
	}
	assert.Greater(t, moved, 0, "two thirds of the keys live on other masters")
}

// Reset meets the same MOVED as Take on a standalone client on one node of
// a cluster, and reports it the same way.
func TestResetMovedIsMisconfigured(t *testing.T) {
	c := redis.NewUniversalClient(redisstore.ClientOptions(testredis.ClusterAddrs(t)[0]))
	defer c.Close()
	s, err := redisstore.New(c, redisstore.WithPrefix(testredis.Prefix(t)))
	require.NoError(t, err)
	ps := policies(t, core.PerMinute(10))
	moved := 0
	for i := range 30 {
		err := s.Reset(context.Background(), fmt.Sprint("k", i), ps)
		if err != nil {
			require.ErrorIs(t, err, redisstore.ErrMisconfigured)
			assert.Contains(t, err.Error(), "MOVED")
			moved++
		}
	}
	assert.Greater(t, moved, 0, "two thirds of the keys live on other masters")
}

// A full Redis (maxmemory, noeviction) refuses the script before it
// writes: ErrOutOfMemory, and the sliding log keeps exactly what it held.
func TestOutOfMemoryWritesNothing(t *testing.T) {
	srv := testredis.ServerWith(t, "--maxmemory-policy", "noeviction")
	admin := srv.Client(t)
	ctx := context.Background()
	s, _ := optionsStore(t, srv.Addr, redisstore.WithClientTime()) // the calls' instants decide
	log := policies(t, core.PerMinute(100).Named("log").Using(core.SlidingLog))
	both := policies(t, core.PerMinute(100).Named("log").Using(core.SlidingLog), core.PerMinute(100).Named("fw").Using(core.FixedWindow))
	now := time.Now()
	for i := range 3 { // three instants: requests in one millisecond share a record
		_, err := s.Take(ctx, "k", log, 1, now.Add(time.Duration(i)*time.Millisecond))
		require.NoError(t, err)
	}
	testredis.FillUp(t, admin) // Redis is full: maxmemory below what it already uses
	for _, ps := range [][]core.Policy{log, both} {
		_, err := s.Take(ctx, "k", ps, 1, now.Add(10*time.Millisecond))
		require.ErrorIs(t, err, redisstore.ErrOutOfMemory)
		r, err := s.Peek(ctx, "k", log, 1, now.Add(10*time.Millisecond))
		require.ErrorIs(t, err, redisstore.ErrOutOfMemory, "a full Redis refuses every script: %v", r)
	}
	require.ErrorIs(t, s.Check(ctx), redisstore.ErrOutOfMemory, "Check decides, so it meets the full Redis too")
	keys, err := admin.Keys(ctx, "*}:l1m:*").Result()
	require.NoError(t, err)
	require.Len(t, keys, 1)
	n, err := admin.ZCard(ctx, keys[0]).Result()
	require.NoError(t, err)
	assert.Equal(t, int64(3), n, "the refused calls wrote nothing")
	fw, err := admin.Keys(ctx, "*}:f1m:*").Result()
	require.NoError(t, err)
	assert.Empty(t, fw)
}
