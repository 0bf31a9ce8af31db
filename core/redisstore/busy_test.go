package redisstore_test

import (
	"context"
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

// busyWith makes the server at addr run a script of someone else's that
// loops until it is killed: past busy-reply-threshold, the server answers
// BUSY to nearly every command. It returns once the server does, and a
// func that kills the script (SCRIPT KILL) and waits until the server
// answers again, which t.Cleanup calls too.
func busyWith(t *testing.T, addr string) (kill func()) {
	t.Helper()
	ctx := context.Background()
	admin := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	t.Cleanup(func() { _ = admin.Close() })
	require.NoError(t, admin.ConfigSet(ctx, "busy-reply-threshold", "10").Err())
	looper := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, ReadTimeout: -1})
	t.Cleanup(func() { _ = looper.Close() })
	looped := make(chan error, 1)
	go func() { looped <- looper.Eval(ctx, "while true do end", nil).Err() }()
	answers := func() error { return admin.Exists(ctx, "k").Err() }
	require.Eventually(t, func() bool { return redis.HasErrorPrefix(answers(), "BUSY") }, 5*time.Second, 5*time.Millisecond)
	done := false
	kill = func() {
		if done {
			return
		}
		done = true
		require.NoError(t, admin.ScriptKill(ctx).Err())
		<-looped
		require.Eventually(t, func() bool { return answers() == nil }, 5*time.Second, 5*time.Millisecond)
	}
	t.Cleanup(kill)
	return kill
}

// A Redis busy with a long script of someone else's answers BUSY: a call
// fails with that answer, uncharged, and neither the call nor Check takes
// it for a setup mistake (a service that starts then runs on its fail
// policy until Redis answers again), on a standalone server and through a
// cluster client. Once the script is killed, both pass, with no restart.
// Before, Check through a cluster client reported "a cluster client, but
// the server is no cluster node", and Check as a user without INFO "the
// server refused the store's script (Redis 7.0 or later is needed)", both
// ErrMisconfigured.
func TestBusyScriptIsNoSetupMistake(t *testing.T) {
	for name, newClient := range map[string]func(addr string) redis.UniversalClient{
		"standalone": func(addr string) redis.UniversalClient {
			return redis.NewUniversalClient(redisstore.ClientOptions(addr))
		},
		// Check skips INFO, which a BUSY server refuses first, for a user
		// that may not run it.
		"standalone, a user without INFO": func(addr string) redis.UniversalClient {
			o := redisstore.ClientOptions(addr)
			o.Username, o.Password = "noinfo", "pw"
			return redis.NewUniversalClient(o)
		},
		"cluster": func(addr string) redis.UniversalClient {
			return redis.NewClusterClient(redisstore.ClientOptions(addr).Cluster())
		},
	} {
		t.Run(name, func(t *testing.T) {
			srv := testredis.Server(t)
			if name == "cluster" {
				srv = testredis.SingleNodeCluster(t)
			}
			aclUser(t, srv.Client(t), "noinfo", "~*", "+@all", "-info")
			client := newClient(srv.Addr)
			t.Cleanup(func() { _ = client.Close() })
			s, err := redisstore.New(client, redisstore.WithPrefix(testredis.Prefix(t)))
			require.NoError(t, err)
			ps := policies(t, core.PerMinute(10))
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_, err = s.Take(ctx, "k", ps, 1, time.Now()) // the client has its connections and slot map
			require.NoError(t, err)

			kill := busyWith(t, srv.Addr)
			_, err = s.Take(ctx, "k", ps, 1, time.Now())
			t.Logf("Take: %v", err)
			require.Error(t, err)
			assert.NotErrorIs(t, err, redisstore.ErrMisconfigured)
			assert.Contains(t, err.Error(), "BUSY")
			cctx, ccancel := context.WithTimeout(ctx, time.Second)
			err = s.Check(cctx)
			ccancel()
			t.Logf("Check: %v", err)
			require.Error(t, err)
			assert.NotErrorIs(t, err, redisstore.ErrMisconfigured)
			assert.Contains(t, err.Error(), "BUSY")

			kill()
			require.NoError(t, s.Check(ctx))
			r, err := s.Peek(ctx, "k", ps, 1, time.Now())
			require.NoError(t, err)
			assert.Equal(t, int64(9), r.States[0].Remaining, "the call that met BUSY was not charged")
		})
	}
}

// A server busy with a script of someone else's still answers HELLO,
// which tells its mode and role: Check names the setup mistakes it can be
// sure of then, a cluster client on a server without cluster support and
// a client on a replica, rather than reporting Redis not ready (a service
// would start, and fail every call once the script ends). A busy master,
// standalone or a cluster node, is still not ready
// (TestBusyScriptIsNoSetupMistake). Before, both read as BUSY alone.
func TestBusyServerSetupMistakes(t *testing.T) {
	t.Run("cluster client, standalone server", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv := testredis.Server(t)
		busyWith(t, srv.Addr)
		client := redis.NewClusterClient(redisstore.ClientOptions(srv.Addr).Cluster())
		t.Cleanup(func() { _ = client.Close() })
		s, err := redisstore.New(client)
		require.NoError(t, err)
		err = s.Check(ctx)
		t.Logf("Check: %v", err)
		require.ErrorIs(t, err, redisstore.ErrMisconfigured)
		assert.Contains(t, err.Error(), "no cluster node")
		assert.Contains(t, err.Error(), "BUSY")
	})
	t.Run("replica", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		master, replica := testredis.Server(t), testredis.Server(t)
		host, port, _ := strings.Cut(master.Addr, ":")
		require.NoError(t, replica.Client(t).ReplicaOf(ctx, host, port).Err())
		busyWith(t, replica.Addr)
		client := redis.NewClient(redisstore.ClientOptions(replica.Addr).Simple())
		t.Cleanup(func() { _ = client.Close() })
		s, err := redisstore.New(client)
		require.NoError(t, err)
		err = s.Check(ctx)
		t.Logf("Check: %v", err)
		require.ErrorIs(t, err, redisstore.ErrMisconfigured)
		assert.Contains(t, err.Error(), "replica")
		assert.Contains(t, err.Error(), "BUSY")
	})
}
