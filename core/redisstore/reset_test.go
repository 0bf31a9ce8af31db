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

// A Reset whose keys are split between two masters while their slot
// moves (one key migrated, the other not yet) meets TRYAGAIN, and is
// retried within its deadline, as a script call is: once the slot has
// moved, the keys are deleted and Reset succeeds.
func TestResetRetriesTryAgain(t *testing.T) {
	cl := testredis.StartCluster(t, 2, 0, 5*time.Second)
	client := redis.NewUniversalClient(redisstore.ClientOptions(cl.Addrs()...))
	t.Cleanup(func() { _ = client.Close() })
	s, err := redisstore.New(client)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ps := policies(t, core.PerMinute(10), core.PerHour(100).Named("h"))
	_, err = s.Take(ctx, "u", ps, 1, time.Now())
	require.NoError(t, err)

	// Both keys of "u" are in one slot: move it to the other master, the
	// first key only for now.
	slot, err := client.ClusterKeySlot(ctx, "{u}").Result()
	require.NoError(t, err)
	from, to := cl.Masters[0], cl.Masters[1]
	if slot >= 16384/2 {
		from, to = to, from
	}
	src, dst := from.Client(t), to.Client(t)
	keys, err := src.ClusterGetKeysInSlot(ctx, int(slot), 10).Result()
	require.NoError(t, err)
	require.Len(t, keys, 2)
	require.NoError(t, dst.Do(ctx, "CLUSTER", "SETSLOT", slot, "IMPORTING", from.ID).Err())
	require.NoError(t, src.Do(ctx, "CLUSTER", "SETSLOT", slot, "MIGRATING", to.ID).Err())
	host, port, _ := strings.Cut(to.Addr, ":")
	require.NoError(t, src.Migrate(ctx, host, port, keys[0], 0, 5*time.Second).Err())

	// The rest moves a little later, as a reshard goes key by key.
	moved := make(chan error, 1)
	time.AfterFunc(100*time.Millisecond, func() {
		err := src.Migrate(ctx, host, port, keys[1], 0, 5*time.Second).Err()
		for _, c := range []*redis.Client{dst, src} {
			if err == nil {
				err = c.Do(ctx, "CLUSTER", "SETSLOT", slot, "NODE", to.ID).Err()
			}
		}
		moved <- err
	})
	require.NoError(t, s.Reset(ctx, "u", ps), "Reset rides out the migration")
	require.NoError(t, <-moved)
	assert.EqualValues(t, 0, dst.Exists(ctx, keys...).Val(), "both keys deleted")
}
