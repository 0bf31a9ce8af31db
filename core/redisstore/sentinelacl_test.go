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
