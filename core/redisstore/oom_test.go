package redisstore_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/redisstore"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// A full Redis under concurrent calls, which the store sends in batches:
// every call fails with ErrOutOfMemory and none is charged, whatever the
// algorithm and whether its key held state already (the sliding log's
// expired records included).
func TestOutOfMemoryBatchesWriteNothing(t *testing.T) {
	srv := testredis.ServerWith(t, "--maxmemory-policy", "noeviction")
	admin := srv.Client(t)
	ctx := context.Background()
	s, client := optionsStore(t, srv.Addr, redisstore.WithClientTime()) // the calls' instants decide
	hook := &batchCounter{perCall: 3}
	hook.watch(t, client)
	ps := policies(t,
		core.PerSecond(100).Named("fw").Using(core.FixedWindow),
		core.PerSecond(100).Named("sw").Using(core.SlidingWindow),
		core.PerSecond(100).Named("log").Using(core.SlidingLog))
	const keys = 16
	now := time.Now()
	// Every key holds state: one request two seconds ago (expired by
	// now: the log's record is due for removal) and one a moment ago.
	for k := range keys {
		for _, at := range []time.Time{now.Add(-2 * time.Second), now.Add(-time.Millisecond)} {
			_, err := s.Take(ctx, fmt.Sprint("k", k), ps, 1, at)
			require.NoError(t, err)
		}
	}
	dump := func() map[string]string {
		out := map[string]string{}
		ks, err := admin.Keys(ctx, "*").Result()
		require.NoError(t, err)
		for _, k := range ks {
			typ, err := admin.Type(ctx, k).Result()
			require.NoError(t, err)
			var v any
			switch typ {
			case "zset":
				v, err = admin.ZRangeWithScores(ctx, k, 0, -1).Result()
			default:
				v, err = admin.Get(ctx, k).Result()
			}
			require.NoError(t, err)
			out[k] = fmt.Sprint(v)
		}
		return out
	}
	before := dump()
	require.Len(t, before, 3*keys)

	testredis.FillUp(t, admin)
	var wg sync.WaitGroup
	for g := range 64 {
		wg.Go(func() {
			for i := range 5 {
				_, err := s.Take(ctx, fmt.Sprint("k", (g+i)%keys), ps, 1, now)
				assert.ErrorIs(t, err, redisstore.ErrOutOfMemory)
			}
		})
	}
	wg.Wait()
	t.Logf("%d batched calls", hook.count())
	assert.Positive(t, hook.count(), "some calls went in batches")
	assert.Equal(t, before, dump(), "the refused calls wrote nothing")
}
