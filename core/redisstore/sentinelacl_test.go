package redisstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core/redisstore"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// A Sentinel client whose Sentinels' ACL user may not ask for the
// master's address (SENTINEL GET-MASTER-ADDR-BY-NAME): the client never
// reaches the master, and Check and every call fail with ErrMisconfigured
// naming the Sentinels' user (SentinelUsername), as CheckSentinels does.
// Before, the error blamed the master's user and its ACL ("the Redis user
// may not run a command the store needs or use its keys").
func TestSentinelUserWithoutPermission(t *testing.T) {
	t.Parallel()
	sn := testredis.StartSentinel(t, time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, s := range sn.Sentinels {
		require.NoError(t, s.Client(t).Do(ctx, "ACL", "SETUSER", "blind", "on", ">blind-s3cret", "+@all",
			"-sentinel|get-master-addr-by-name").Err())
	}
	user := func(o *redis.UniversalOptions) { o.SentinelUsername, o.SentinelPassword = "blind", "blind-s3cret" }
	check, take := sentinelMistake(t, sn.Addrs(), user)
	o := redisstore.ClientOptions(sn.Addrs()...)
	o.MasterName = testredis.SentinelMaster
	user(o)
	sentinels := redisstore.CheckSentinels(ctx, o)
	for name, err := range map[string]error{"Check": check, "Take": take, "CheckSentinels": sentinels} {
		t.Logf("%s: %v", name, err)
		require.ErrorIs(t, err, redisstore.ErrMisconfigured, name)
		assert.Contains(t, err.Error(), "NOPERM", name)
		assert.Contains(t, err.Error(), "SentinelUsername", name)
		assert.NotContains(t, err.Error(), "store needs", name)
		assert.NotContains(t, err.Error(), "s3cret", name)
	}
}

// A Sentinel client whose options' OnConnect sends the Sentinels a
// command they do not have (SELECT, which a Sentinel lacks) or that their
// user may not run (CLIENT SETNAME, for a user granted only what the
// client asks): go-redis runs OnConnect on its connections to the
// Sentinels too, so the client never reaches the master. CheckSentinels,
// Check and every call name OnConnect, and neither the store's commands,
// nor the user's permission to ask for the master's address, which it has.
// Before, the first read "the server has no command the store needs
// (renamed or disabled with rename-command?)" and the second "may not ask
// for the master's address".
func TestSentinelRefusesOnConnect(t *testing.T) {
	t.Parallel()
	sn := testredis.StartSentinel(t, time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, s := range sn.Sentinels {
		require.NoError(t, s.Client(t).Do(ctx, "ACL", "SETUSER", "min", "on", ">min-s3cret", "-@all",
			"+sentinel|get-master-addr-by-name").Err())
	}
	for name, mod := range map[string]func(o *redis.UniversalOptions){
		"SELECT": func(o *redis.UniversalOptions) {
			load := o.OnConnect
			o.OnConnect = func(ctx context.Context, cn *redis.Conn) error {
				if err := cn.Select(ctx, 0).Err(); err != nil {
					return err
				}
				return load(ctx, cn)
			}
		},
		"CLIENT SETNAME, not granted": func(o *redis.UniversalOptions) {
			o.SentinelUsername, o.SentinelPassword = "min", "min-s3cret"
			load := o.OnConnect
			o.OnConnect = func(ctx context.Context, cn *redis.Conn) error {
				if err := cn.ClientSetName(ctx, "limiter").Err(); err != nil {
					return err
				}
				return load(ctx, cn)
			}
		},
	} {
		check, take := sentinelMistake(t, sn.Addrs(), mod)
		o := redisstore.ClientOptions(sn.Addrs()...)
		o.MasterName = testredis.SentinelMaster
		mod(o)
		sentinels := redisstore.CheckSentinels(ctx, o)
		for op, err := range map[string]error{"Check": check, "Take": take, "CheckSentinels": sentinels} {
			op = name + ", " + op
			t.Logf("%s: %v", op, err)
			require.ErrorIs(t, err, redisstore.ErrMisconfigured, op)
			assert.Contains(t, err.Error(), "OnConnect", op)
			assert.NotContains(t, err.Error(), "store needs", op)
			assert.NotContains(t, err.Error(), "master's address", op)
			assert.NotContains(t, err.Error(), "s3cret", op)
		}
	}
}
