package redisstore_test

import (
	"context"
	"errors"
	"net"
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

// Sentinels that want a password the options do not hold, given to them
// by the options' OnConnect (a password fetched as each connection is
// made, say: go-redis gives the Sentinels' connections no credentials
// provider). go-redis runs OnConnect on its connections to the Sentinels
// too, so its client reaches the master; CheckSentinels, which makes its
// connections as go-redis does, passes, and a wrong password there is
// still named as the Sentinels' credentials. Before, CheckSentinels left
// OnConnect out and reported the Sentinels refusing the client's
// credentials, a setup mistake, for a setup that works.
func TestCheckSentinelsRunsOnConnect(t *testing.T) {
	t.Parallel()
	sn := testredis.StartSentinel(t, time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	const pass = "sentinel-s3cret"
	for _, s := range sn.Sentinels {
		require.NoError(t, s.Client(t).Do(ctx, "ACL", "SETUSER", "default", "resetpass", ">"+pass).Err())
	}
	// opts returns the options of a client whose OnConnect logs in to the
	// Sentinels with password, counting the connections in authed.
	opts := func(password string, authed *atomic.Int32) *redis.UniversalOptions {
		o := redisstore.ClientOptions(sn.Addrs()...)
		o.MasterName = testredis.SentinelMaster
		load := o.OnConnect
		o.OnConnect = func(ctx context.Context, cn *redis.Conn) error {
			// Only the Sentinels want a password: the master answers.
			if err := cn.Ping(ctx).Err(); redis.HasErrorPrefix(err, "NOAUTH") {
				if err := cn.Auth(ctx, password).Err(); err != nil {
					return err
				}
				authed.Add(1)
			}
			return load(ctx, cn)
		}
		return o
	}

	var client, check atomic.Int32
	c := redis.NewUniversalClient(opts(pass, &client))
	t.Cleanup(func() { _ = c.Close() })
	s, err := redisstore.New(c, redisstore.WithPrefix(testredis.Prefix(t)))
	require.NoError(t, err)
	_, err = s.Take(ctx, "k", policies(t, core.PerMinute(10)), 1, time.Now())
	require.NoError(t, err, "go-redis reaches the master through the Sentinels")
	require.NoError(t, s.Check(ctx))
	require.Positive(t, client.Load(), "go-redis ran OnConnect on a Sentinel's connection")

	o := opts(pass, &check)
	require.NoError(t, redisstore.CheckSentinels(ctx, o))
	assert.EqualValues(t, len(sn.Sentinels), check.Load(), "OnConnect logged in to every Sentinel")
	require.NoError(t, redisstore.CheckFailoverSentinels(ctx, o.Failover()))

	err = redisstore.CheckSentinels(ctx, opts("wr0ng-s3cret", &check))
	require.ErrorIs(t, err, redisstore.ErrMisconfigured)
	assert.Contains(t, err.Error(), "WRONGPASS")
	assert.Contains(t, err.Error(), "SentinelPassword", "named as the Sentinels' credentials")
	assert.NotContains(t, err.Error(), "s3cret")
}

// The options' DialerRetryBackoff paces the dials CheckFailoverSentinels
// makes again, as it paces go-redis's own to the Sentinels: here the first
// dial to each Sentinel fails, and the next one comes after the wait it
// names. Before, CheckFailoverSentinels waited go-redis's default instead.
func TestCheckSentinelsDialerRetryBackoff(t *testing.T) {
	t.Parallel()
	names, dial := sentinelNames(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var dialled sync.Map // the addresses dialled once
	var paced atomic.Int32
	f := &redis.FailoverOptions{
		MasterName: testredis.SentinelMaster, SentinelAddrs: names, DialerRetries: 2,
		Dialer: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if _, again := dialled.LoadOrStore(addr, true); !again {
				return nil, errors.New("the first dial fails")
			}
			return dial(ctx, network, addr)
		},
		DialerRetryBackoff: func(attempt int) time.Duration {
			paced.Add(1)
			return time.Millisecond
		},
	}
	require.NoError(t, redisstore.CheckFailoverSentinels(ctx, f))
	assert.EqualValues(t, len(names), paced.Load(), "one wait before the second dial of each Sentinel")
}

// An OnConnect that does not honour its context (a password fetched with
// a context of its own, say) and hangs on the Sentinels' connections:
// CheckSentinels still ends once its ctx is done (here, cancelled once
// OnConnect hangs on every Sentinel's connection), with an error that is
// no setup mistake, as when no Sentinel can be reached. Before, it waited
// for every Sentinel's answer, so for as long as OnConnect hung.
func TestCheckSentinelsHungOnConnect(t *testing.T) {
	t.Parallel()
	sn := testredis.StartSentinel(t, time.Second)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) }) // before the Sentinels stop
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := redisstore.ClientOptions(sn.Addrs()...)
	o.MasterName = testredis.SentinelMaster
	var hung atomic.Int32
	o.OnConnect = func(context.Context, *redis.Conn) error {
		if hung.Add(1) == int32(len(sn.Sentinels)) {
			cancel()
		}
		<-release
		return nil
	}
	done := make(chan error, 1)
	go func() { done <- redisstore.CheckSentinels(ctx, o) }()
	select {
	case err := <-done:
		t.Logf("CheckSentinels: %v", err)
		require.Error(t, err)
		assert.ErrorIs(t, err, context.Canceled)
		assert.NotErrorIs(t, err, redisstore.ErrMisconfigured)
		assert.Contains(t, err.Error(), "no Sentinel answered")
	case <-time.After(30 * time.Second):
		t.Fatalf("CheckSentinels did not end with its ctx while OnConnect hung on %d connections", hung.Load())
	}
}

// noSetInfoConn is a connection to a Sentinel behind something that drops
// a connection on CLIENT SETINFO (what DisableIdentity is for).
type noSetInfoConn struct{ net.Conn }

func (c noSetInfoConn) Write(p []byte) (int, error) {
	if strings.Contains(strings.ToLower(string(p)), "setinfo") {
		_ = c.Close()
		return 0, errors.New("connection dropped on CLIENT SETINFO")
	}
	return c.Conn.Write(p)
}

// Options that disable go-redis's CLIENT SETINFO, by either spelling of
// the option (DisableIndentity is deprecated, and go-redis still honours
// it on its connections to the Sentinels): CheckFailoverSentinels sends
// none either, and passes Sentinels that drop a connection on it. Before,
// it honoured DisableIdentity alone, and reported those Sentinels as not
// answering.
func TestCheckSentinelsDisableIdentity(t *testing.T) {
	t.Parallel()
	names, dial := sentinelNames(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	noSetInfo := func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return noSetInfoConn{c}, nil
	}
	f := &redis.FailoverOptions{MasterName: testredis.SentinelMaster, SentinelAddrs: names, Dialer: noSetInfo}
	err := redisstore.CheckFailoverSentinels(ctx, f)
	require.Error(t, err, "the Sentinels drop the connections that send CLIENT SETINFO")
	assert.Contains(t, err.Error(), "CLIENT SETINFO")
	f.DisableIdentity = true
	require.NoError(t, redisstore.CheckFailoverSentinels(ctx, f), "DisableIdentity")
	//lint:ignore SA1019 the deprecated spelling is still honoured, and tested as such
	f.DisableIdentity, f.DisableIndentity = false, true
	require.NoError(t, redisstore.CheckFailoverSentinels(ctx, f), "DisableIndentity")
}
