package redisstore_test

import (
	"context"
	"fmt"
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

// A master of a Cluster that accepts but does not answer (paused, stopped,
// cut off) holds up only the calls for its own keys: the others are
// decided on their masters as usual. Before each master had its batches
// of its own, every batch waited for its slowest master, and the calls for
// the healthy masters' keys queued behind the stalled one's and ran into
// their deadlines (65 decided and 144 failed in 2 s, instead of tens of
// thousands decided).
func TestStalledMasterHoldsOnlyItsKeys(t *testing.T) {
	cl, s, keys := threeMasters(t)
	ctx := context.Background()
	ps := policies(t, core.Per(1_000_000, time.Hour))
	require.NoError(t, cl.Masters[0].Client(t).Do(ctx, "CLIENT", "PAUSE", 2500, "ALL").Err())

	var decided, failed atomic.Int64
	end := time.Now().Add(1500 * time.Millisecond)
	var wg sync.WaitGroup
	for g := range 8 { // calls for the stalled master's keys
		wg.Go(func() {
			for time.Now().Before(end) {
				c, cancel := context.WithTimeout(ctx, time.Second)
				_, _ = s.Take(c, keys[0][g], ps, 1, time.Now())
				cancel()
			}
		})
	}
	for g := range 16 { // calls for the other masters' keys
		wg.Go(func() {
			for time.Now().Before(end) {
				c, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
				_, err := s.Take(c, keys[1+g%2][g/2], ps, 1, time.Now())
				cancel()
				if err != nil {
					failed.Add(1)
				} else {
					decided.Add(1)
				}
			}
		})
	}
	wg.Wait()
	t.Logf("healthy masters' keys while one master stalled: %d decided, %d failed", decided.Load(), failed.Load())
	assert.Greater(t, decided.Load(), 20*failed.Load(), "at most one call in 20 fails")
	assert.Greater(t, decided.Load(), int64(1000))
}

// threeMasters starts a private Cluster of three masters, checks a store
// on it, and returns them with eight keys served by each master:
// keys[m] are master m's (StartCluster splits the slots evenly).
func threeMasters(t *testing.T) (*testredis.PrivateCluster, *redisstore.Store, [][]string) {
	t.Helper()
	cl := testredis.StartCluster(t, 3, 0, 5*time.Second)
	client := redis.NewUniversalClient(redisstore.ClientOptions(cl.Addrs()...))
	t.Cleanup(func() { _ = client.Close() })
	s, err := redisstore.New(client)
	require.NoError(t, err)
	ctx := context.Background()
	require.NoError(t, s.Check(ctx))
	keys := make([][]string, 3)
	for i := 0; len(keys[0]) < 8 || len(keys[1]) < 8 || len(keys[2]) < 8; i++ {
		k := fmt.Sprint("key", i)
		m := min(int(client.ClusterKeySlot(ctx, "{"+k+"}").Val())/(16384/3), 2)
		keys[m] = append(keys[m], k)
	}
	return cl, s, keys
}
