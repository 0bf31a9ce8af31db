package redisstore_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/redisstore"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// accessStore is a store on a client from ClientOptions for addr, with
// the options changed by set.
func accessStore(t *testing.T, addr string, set func(*redis.UniversalOptions)) *redisstore.Store {
	t.Helper()
	o := redisstore.ClientOptions(addr)
	set(o)
	c := redis.NewUniversalClient(o)
	t.Cleanup(func() { _ = c.Close() })
	s, err := redisstore.New(c, redisstore.WithPrefix(testredis.Prefix(t)))
	require.NoError(t, err)
	return s
}

// aclUser adds a user with the given ACL rules (and the password "pw") to
// the server of admin, and removes it when the test ends.
func aclUser(t *testing.T, admin *redis.Client, name string, rules ...any) {
	t.Helper()
	ctx := context.Background()
	require.NoError(t, admin.Do(ctx, append([]any{"ACL", "SETUSER", name, "reset", "on", ">pw"}, rules...)...).Err())
	t.Cleanup(func() { _ = admin.Do(ctx, "ACL", "DELUSER", name).Err() })
}

// Credentials Redis refuses, a database it does not have, or a user the
// ACL forbids the store's commands are configuration mistakes: Check and
// every call report them with ErrMisconfigured and the cause, never the
// password, and not as Redis being down (which a service starts through,
// its fail-open limiter passing every request).
func TestCredentialsAndACLAreMisconfigurations(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ps := policies(t, core.PerMinute(10))
	acl := testredis.Server(t)
	aclUser(t, acl.Client(t), "noscripts", "~*", "+@all", "-evalsha", "-eval", "-script")
	aclUser(t, acl.Client(t), "noinfo", "~*", "+@all", "-info")
	protected := testredis.Server(t)
	// Set after the start: testredis waits for the server with a PING.
	require.NoError(t, protected.Client(t).ConfigSet(ctx, "requirepass", "topsecret").Err())

	for _, tt := range []struct {
		name, addr string
		set        func(*redis.UniversalOptions)
		cause      string
	}{
		{"wrong password", protected.Addr, func(o *redis.UniversalOptions) { o.Password = "s3cretGuess" }, "WRONGPASS"},
		{"wrong user password", acl.Addr, func(o *redis.UniversalOptions) { o.Username, o.Password = "noinfo", "s3cretGuess" }, "WRONGPASS"},
		{"no password", protected.Addr, func(o *redis.UniversalOptions) {}, "NOAUTH"},
		{"no such database", acl.Addr, func(o *redis.UniversalOptions) { o.DB = 99 }, "DB index is out of range"},
		{"no scripts allowed", acl.Addr, func(o *redis.UniversalOptions) { o.Username, o.Password = "noscripts", "pw" }, "NOPERM"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := accessStore(t, tt.addr, tt.set)
			err := s.Check(ctx)
			require.ErrorIs(t, err, redisstore.ErrMisconfigured)
			assert.Contains(t, err.Error(), tt.cause)
			assert.NotContains(t, err.Error(), "s3cret")
			assert.NotContains(t, err.Error(), "7.0", "the server's version is not the cause")
			_, err = s.Take(ctx, "k", ps, 1, time.Now())
			require.ErrorIs(t, err, redisstore.ErrMisconfigured)
			assert.Contains(t, err.Error(), tt.cause)
			assert.NotContains(t, err.Error(), "s3cret")
		})
	}
	// INFO only tells Check more; a user that may not run it still has
	// a working store.
	t.Run("no INFO allowed", func(t *testing.T) {
		s := accessStore(t, acl.Addr, func(o *redis.UniversalOptions) { o.Username, o.Password = "noinfo", "pw" })
		require.NoError(t, s.Check(ctx))
		_, err := s.Take(ctx, "k", ps, 1, time.Now())
		require.NoError(t, err)
	})
}

// documentedACL is the ACL of docs/redis.md, for the default prefix.
var documentedACL = []any{"~rw:*", "+evalsha", "+eval", "+script|load", "+del", "+get", "+set", "+incrby",
	"+pexpire", "+pexpiretime", "+time", "+zadd", "+zcard", "+zcount", "+zrange", "+zrangebyscore", "+zrem",
	"+zremrangebyscore", "+cluster|slots", "+cluster|shards"}

// A user that may load the scripts but whose ACL refuses the store's
// keys, writes to them, or a command the scripts run, fails every call:
// Check finds it by deciding on keys of its own, and leaves none behind.
func TestCheckDecidesUnderTheACL(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	all := policies(t, core.PerMinute(10).Named("fw").Using(core.FixedWindow),
		core.PerMinute(10).Named("sw").Using(core.SlidingWindow),
		core.PerMinute(10).Named("log").Using(core.SlidingLog))
	srv := testredis.Server(t)
	admin := srv.Client(t)
	aclUser(t, admin, "otherkeys", "~other:*", "+@all")
	aclUser(t, admin, "readonly", "%R~*", "+@all")
	aclUser(t, admin, "noexpiretime", "~*", "+@all", "-pexpiretime")
	aclUser(t, admin, "documented", documentedACL...)
	user := func(name string) func(*redis.UniversalOptions) {
		return func(o *redis.UniversalOptions) { o.Username, o.Password = name, "pw" }
	}
	for _, tt := range []struct{ user, cause string }{
		{"otherkeys", "NOPERM"},
		{"readonly", "NOPERM"},
		{"noexpiretime", "can't run this command"},
	} {
		t.Run(tt.user, func(t *testing.T) {
			s := accessStore(t, srv.Addr, user(tt.user))
			err := s.Check(ctx)
			require.ErrorIs(t, err, redisstore.ErrMisconfigured)
			assert.Contains(t, err.Error(), tt.cause)
			_, err = s.Take(ctx, "k", all, 1, time.Now())
			require.ErrorIs(t, err, redisstore.ErrMisconfigured)
			assert.Contains(t, err.Error(), tt.cause)
		})
	}
	t.Run("the documented ACL", func(t *testing.T) {
		o := redisstore.ClientOptions(srv.Addr)
		user("documented")(o)
		c := redis.NewUniversalClient(o)
		defer c.Close()
		s, err := redisstore.New(c)
		require.NoError(t, err)
		require.NoError(t, s.Check(ctx))
		keys, err := admin.Keys(ctx, "*").Result()
		require.NoError(t, err)
		assert.Empty(t, keys, "Check leaves no key behind")
		key := testredis.Prefix(t)
		for i := range 3 {
			_, err := s.Take(ctx, key, all, 1, time.Now().Add(time.Duration(i)*time.Millisecond))
			require.NoError(t, err)
		}
		require.NoError(t, s.Reset(ctx, key, all))
	})
	t.Run("cluster", func(t *testing.T) {
		admin := testredis.Cluster(t)
		name := "u" + testredis.Prefix(t)
		// Every node has its own ACL: one master refuses the keys.
		var once sync.Once
		var refusing string
		require.NoError(t, admin.ForEachMaster(ctx, func(ctx context.Context, n *redis.Client) error {
			rules := documentedACL
			once.Do(func() { rules, refusing = []any{"~other:*", "+@all"}, n.Options().Addr })
			return n.Do(ctx, append([]any{"ACL", "SETUSER", name, "reset", "on", ">pw"}, rules...)...).Err()
		}))
		err := checkAsClusterUser(t, admin, name)
		require.ErrorIs(t, err, redisstore.ErrMisconfigured)
		assert.Contains(t, err.Error(), "NOPERM")
		assert.Contains(t, err.Error(), refusing, "the error names the master")
	})
	// go-redis reads its slot map with CLUSTER SLOTS, the store which
	// slots no master serves with CLUSTER SHARDS: a user without them
	// is named as such, not as a client on a server without cluster
	// support.
	for _, cmd := range []string{"cluster|slots", "cluster|shards"} {
		t.Run("cluster without "+cmd, func(t *testing.T) {
			admin := testredis.Cluster(t)
			name := "u" + testredis.Prefix(t)
			require.NoError(t, admin.ForEachShard(ctx, func(ctx context.Context, n *redis.Client) error {
				return n.Do(ctx, "ACL", "SETUSER", name, "reset", "on", ">pw", "~*", "+@all", "-"+cmd).Err()
			}))
			err := checkAsClusterUser(t, admin, name)
			require.ErrorIs(t, err, redisstore.ErrMisconfigured)
			assert.Contains(t, err.Error(), "NOPERM")
			assert.Contains(t, err.Error(), cmd)
			assert.NotContains(t, err.Error(), "no cluster node")
		})
	}
}

// checkAsClusterUser runs Check on a store whose client logs in to the
// test cluster as name (set up on its nodes by the caller), and deletes
// the user from every node when the test ends.
func checkAsClusterUser(t *testing.T, admin *redis.ClusterClient, name string) error {
	t.Cleanup(func() {
		_ = admin.ForEachShard(context.Background(), func(ctx context.Context, n *redis.Client) error {
			return n.Do(ctx, "ACL", "DELUSER", name).Err()
		})
	})
	o := redisstore.ClientOptions(testredis.ClusterAddrs(t)...)
	o.Username, o.Password = name, "pw"
	c := redis.NewUniversalClient(o)
	defer c.Close()
	s, err := redisstore.New(c)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return s.Check(ctx)
}
