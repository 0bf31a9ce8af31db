package redisstore_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// SCRIPT FLUSH in a loop while concurrent calls go out in batches (one
// batch script on a standalone Redis, pipelines per master on a Cluster):
// no call fails, and the limits hold exactly, so no call that met
// NOSCRIPT was lost or charged twice.
func TestScriptFlushUnderLoad(t *testing.T) {
	ps := policies(t, core.PerMinute(200).Using(core.FixedWindow), core.PerMinute(200).Named("log").Using(core.SlidingLog))
	for name, c := range testredis.Universal(t) {
		t.Run(name, func(t *testing.T) {
			s, _ := store(t, c)
			ctx := context.Background()
			stop := make(chan struct{})
			flushed := make(chan struct{})
			go func() {
				defer close(flushed)
				for {
					select {
					case <-stop:
						return
					default:
						// Not flush: no require off the test's goroutine.
						if cc, ok := c.(*redis.ClusterClient); ok {
							_ = cc.ForEachMaster(ctx, func(ctx context.Context, n *redis.Client) error {
								return n.ScriptFlush(ctx).Err()
							})
						} else {
							_ = c.ScriptFlush(ctx).Err()
						}
					}
				}
			}()
			var allowed, failed atomic.Int64
			var wg sync.WaitGroup
			for g := range 32 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					key := []string{"a", "b"}[g%2]
					for range 20 { // 320 calls per key for a limit of 200
						r, err := s.Take(ctx, key, ps, 1, base)
						if err != nil {
							failed.Add(1)
							t.Log(err)
						} else if r.States[0].Allowed && r.States[1].Allowed {
							allowed.Add(1)
						}
					}
				}()
			}
			wg.Wait()
			close(stop)
			<-flushed
			assert.Zero(t, failed.Load())
			assert.Equal(t, int64(400), allowed.Load())
			for _, key := range []string{"a", "b"} {
				r, err := s.Peek(ctx, key, ps, 1, base)
				require.NoError(t, err)
				assert.Zero(t, r.States[0].Remaining)
				assert.Zero(t, r.States[1].Remaining)
			}
		})
	}
}
