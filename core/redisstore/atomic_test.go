package redisstore_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/redisstore"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// Many goroutines spread over independent clients (separate connection
// pools, as separate processes would have) hit one key at one instant: the
// fixed window and the sliding log must admit exactly the limit.
func TestCrossClientAtomicity(t *testing.T) {
	const (
		limit      = 100
		goroutines = 32
		each       = 10 // 320 attempts for 100 slots
	)
	setups := map[string]func(t *testing.T) []redis.UniversalClient{
		"standalone": func(t *testing.T) []redis.UniversalClient {
			return []redis.UniversalClient{testredis.Standalone(t), testredis.Standalone(t), testredis.Standalone(t)}
		},
		"cluster": func(t *testing.T) []redis.UniversalClient {
			return []redis.UniversalClient{testredis.Cluster(t), testredis.Cluster(t)}
		},
	}
	for name, clients := range setups {
		for _, alg := range []core.Algorithm{core.FixedWindow, core.SlidingLog} {
			t.Run(name+"/"+alg.String(), func(t *testing.T) {
				prefix := testredis.Prefix(t)
				var stores []*redisstore.Store
				for _, c := range clients(t) {
					s, err := redisstore.New(c, redisstore.WithPrefix(prefix), redisstore.WithClientTime())
					require.NoError(t, err)
					stores = append(stores, s)
				}
				ps := policies(t, core.PerHour(limit).Using(alg))
				now := base.Add(17 * time.Minute) // fixed (WithClientTime): the window cannot roll mid-test

				var allowed atomic.Int64
				var wg sync.WaitGroup
				errs := make(chan error, goroutines)
				for g := range goroutines {
					wg.Add(1)
					go func() {
						defer wg.Done()
						s := stores[g%len(stores)]
						for range each {
							r, err := s.Take(context.Background(), "shared", ps, 1, now)
							if err != nil {
								errs <- err
								return
							}
							if r.States[0].Allowed {
								allowed.Add(1)
							}
						}
					}()
				}
				wg.Wait()
				close(errs)
				for err := range errs {
					require.NoError(t, err)
				}
				require.Equal(t, int64(limit), allowed.Load())

				r, err := stores[0].Peek(context.Background(), "shared", ps, 1, now)
				require.NoError(t, err)
				require.False(t, r.States[0].Allowed)
				require.Zero(t, r.States[0].Remaining)
			})
		}
	}
}
