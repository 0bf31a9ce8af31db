package testredis

import (
	"context"
	"fmt"
	"net"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recorder is a testing.TB that records Skip and Fatal instead of acting on
// them, so the unset-variable path can be checked.
type recorder struct {
	testing.TB
	skipped, failed bool
	msg             string
}

func (r *recorder) Helper() {}
func (r *recorder) Skip(args ...any) {
	r.skipped, r.msg = true, fmt.Sprint(args...)
	runtime.Goexit()
}
func (r *recorder) Fatal(args ...any) {
	r.failed, r.msg = true, fmt.Sprint(args...)
	runtime.Goexit()
}

func (r *recorder) Skipf(format string, args ...any)  { r.Skip(fmt.Sprintf(format, args...)) }
func (r *recorder) Fatalf(format string, args ...any) { r.Fatal(fmt.Sprintf(format, args...)) }

func runRecorded(t *testing.T, f func(tb testing.TB)) *recorder {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() { defer close(done); f(r) }()
	<-done
	return r
}

func TestLookupUnset(t *testing.T) {
	tests := []struct {
		ci                  string
		wantSkip, wantFatal bool
	}{
		{ci: "", wantSkip: true},
		{ci: "false", wantSkip: true},
		{ci: "true", wantFatal: true},
	}
	for _, tt := range tests {
		t.Run("CI="+tt.ci, func(t *testing.T) {
			t.Setenv(EnvAddr, "")
			t.Setenv("CI", tt.ci)
			r := runRecorded(t, func(tb testing.TB) { Addr(tb) })
			assert.Equal(t, tt.wantSkip, r.skipped)
			assert.Equal(t, tt.wantFatal, r.failed)
			assert.Contains(t, r.msg, "./scripts/test")
			assert.Contains(t, r.msg, EnvAddr)
		})
	}
}

func TestStandaloneFailsWhenUnreachable(t *testing.T) {
	t.Setenv(EnvAddr, DeadAddr(t))
	r := runRecorded(t, func(tb testing.TB) { Standalone(tb) })
	assert.True(t, r.failed, "an unreachable server must fail the test, not skip it")
	assert.False(t, r.skipped)
}

func TestStandalone(t *testing.T) {
	ctx := context.Background()
	a, b := Standalone(t), Standalone(t)
	key := Prefix(t) + ":k"
	require.NoError(t, a.Set(ctx, key, "v", time.Minute).Err())
	got, err := b.Get(ctx, key).Result()
	require.NoError(t, err)
	assert.Equal(t, "v", got)
	require.NoError(t, a.Del(ctx, key).Err())
}

func TestCluster(t *testing.T) {
	ctx := context.Background()
	c := Cluster(t)
	assert.Len(t, ClusterAddrs(t), 3)
	var masters atomic.Int32
	require.NoError(t, c.ForEachMaster(ctx, func(context.Context, *redis.Client) error {
		masters.Add(1)
		return nil
	}))
	assert.Equal(t, int32(3), masters.Load())
	// Keys spread over the slots of every master.
	p := Prefix(t)
	for i := range 30 {
		k := fmt.Sprintf("%s:%d", p, i)
		require.NoError(t, c.Set(ctx, k, i, time.Minute).Err())
		require.NoError(t, c.Del(ctx, k).Err())
	}
}

func TestUniversal(t *testing.T) {
	clients := Universal(t)
	require.Len(t, clients, 2)
	for name, c := range clients {
		require.NoError(t, c.Ping(context.Background()).Err(), name)
	}
}

func TestPrefixUnique(t *testing.T) {
	a, b := Prefix(t), Prefix(t)
	assert.NotEqual(t, a, b)
	assert.NotContains(t, a, "{")
	assert.NotContains(t, a, "}")
}

func TestDeadAddrRefuses(t *testing.T) {
	_, err := net.DialTimeout("tcp", DeadAddr(t), time.Second)
	assert.Error(t, err)
}

func TestServerStartStop(t *testing.T) {
	s := Server(t)
	c := s.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	require.NoError(t, c.Ping(ctx).Err())
	s.Stop()
	s.Stop() // idempotent
	assert.Error(t, c.Ping(ctx).Err(), "a stopped server must not answer")
}

func TestStartCluster(t *testing.T) {
	start := time.Now()
	c := StartCluster(t, 3, 1, time.Second)
	t.Logf("cluster of 6 up in %v", time.Since(start))
	require.Len(t, c.Masters, 3)
	rdb := redis.NewClusterClient(&redis.ClusterOptions{Addrs: c.Addrs()})
	defer rdb.Close()
	ctx := context.Background()
	for i := range 30 {
		require.NoError(t, rdb.Set(ctx, fmt.Sprint("k", i), i, time.Minute).Err())
	}
	for i := range c.Masters {
		require.Len(t, c.Replicas[i], 1)
		assert.Equal(t, c.Masters[i].ID, c.Replicas[i][0].Master)
	}
}

func TestStartSentinel(t *testing.T) {
	start := time.Now()
	s := StartSentinel(t, time.Second)
	t.Logf("sentinel setup up in %v", time.Since(start))
	rdb := redis.NewUniversalClient(&redis.UniversalOptions{Addrs: s.Addrs(), MasterName: SentinelMaster})
	defer rdb.Close()
	require.NoError(t, rdb.Set(context.Background(), "k", 1, time.Minute).Err())
}

func TestSingleNodeCluster(t *testing.T) {
	start := time.Now()
	c := SingleNodeCluster(t).Client(t)
	t.Logf("single-node cluster up in %v", time.Since(start))
	ctx := context.Background()
	// Keys of any slot are served: no MOVED.
	for i := range 30 {
		require.NoError(t, c.Set(ctx, fmt.Sprint("k", i), i, time.Minute).Err())
	}
	// A script whose keys span slots is refused before it runs.
	err := c.Eval(ctx, "redis.call('SET', KEYS[1], 1) return redis.call('SET', KEYS[2], 1)", []string{"a", "b"}).Err()
	require.ErrorContains(t, err, "CROSSSLOT")
	for _, k := range []string{"a", "b"} {
		n, err := c.Exists(ctx, k).Result()
		require.NoError(t, err)
		assert.Zero(t, n, "the refused script wrote nothing")
	}
}

// A server restarted by StartLoading answers LOADING until End, and then
// holds the dataset written before the restart.
func TestStartLoading(t *testing.T) {
	ctx := context.Background()
	l := StartLoading(t, func(ctx context.Context, c *redis.Client) error {
		return c.Set(ctx, "kept", "yes", 0).Err()
	})
	c := redis.NewClient(&redis.Options{Addr: l.Addr, MaxRetries: -1}) // go-redis retries no LOADING itself
	t.Cleanup(func() { _ = c.Close() })
	require.True(t, redis.HasErrorPrefix(c.Get(ctx, "kept").Err(), "LOADING"), "a command is refused while loading")
	l.End(t)
	assert.Equal(t, "yes", c.Get(ctx, "kept").Val())
	assert.EqualValues(t, 2001, c.DBSize(ctx).Val(), "the key and the 2,000 filler keys")
}

// A restart whose port another process holds for a moment (a probe for a
// free port binds it, a server starting there gives up) waits for the
// port, and the server that answers there is the restarted one. Before,
// the restart failed at once.
func TestRestartWaitsForItsPort(t *testing.T) {
	s := Server(t)
	s.Stop()
	ln, err := net.Listen("tcp", s.Addr)
	require.NoError(t, err)
	held := time.AfterFunc(300*time.Millisecond, func() { _ = ln.Close() })
	defer held.Stop()
	n := s.startAgain(t, nil)
	assert.Equal(t, s.Addr, n.Addr)
	assert.NoError(t, n.Client(t).Ping(context.Background()).Err())
}

// A server started on a port where another Redis answers (it holds the
// port: the new one exits at once) is not taken for the new server: the
// start fails. Before, the first PING, answered by the other server
// before the new one had exited, made the start succeed, and the test
// used a server that was not its own (another test's, with its data).
func TestStartOnAnotherServersPort(t *testing.T) {
	other := Server(t)
	_, p, err := net.SplitHostPort(other.Addr)
	require.NoError(t, err)
	port, err := strconv.Atoi(p)
	require.NoError(t, err)
	s, err := start(ServerPath(t), t.TempDir(), port, nil, nil, answersPing)
	if err == nil {
		s.Stop()
	}
	require.Error(t, err, "the server that answers on the port is another's")
	assert.NoError(t, other.Client(t).Ping(context.Background()).Err(), "the other server still runs")
}
