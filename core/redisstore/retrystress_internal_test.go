package redisstore

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
	"github.com/ratewindow/ratewindow/internal/policytest"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// noReload is a master's hook that leaves out the SCRIPT LOADs of a
// pipeline sent again after NOSCRIPT (see pipelineTo): its script calls
// meet NOSCRIPT again, and are retried each on its own (see retryEach).
// It counts those pipelines.
type noReload struct{ n atomic.Int64 }

func (*noReload) DialHook(next redis.DialHook) redis.DialHook          { return next }
func (*noReload) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }

func (h *noReload) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		i := 0
		for i < len(cmds) && cmds[i].Name() == "script" {
			i++
		}
		if i > 0 {
			h.n.Add(1)
		}
		return next(ctx, cmds[i:])
	}
}

// Many calls batched per master of a Cluster, while every master loses
// its scripts again and again (SCRIPT FLUSH, with connections that do not
// load them): batches meet NOSCRIPT, are sent again without the scripts
// loaded (see noReload), meet NOSCRIPT again, and their requests are
// retried each on its own goroutine, at once, each loading the script
// with EVAL. Every call is decided, and charged exactly once: what Redis
// counted for each key is the number of calls for it that were allowed,
// none lost, none run twice.
func TestClusterRetriesUnderScriptFlushesChargeEachCallOnce(t *testing.T) {
	cl := testredis.StartCluster(t, 3, 0, 5*time.Second)
	opts := ClientOptions(cl.Addrs()...)
	opts.OnConnect = nil // connections do not load the scripts
	opts.PoolSize = 8    // fewer connections than a batch has requests
	client := redis.NewUniversalClient(opts).(*redis.ClusterClient)
	t.Cleanup(func() { _ = client.Close() })
	reloads := &noReload{}
	client.OnNewNode(func(node *redis.Client) { node.AddHook(reloads) })
	s, err := New(client, WithPrefix(testredis.Prefix(t)))
	require.NoError(t, err)
	ctx := context.Background()
	require.NoError(t, s.Check(ctx))
	const limit = 1_000_000
	ps, err := policytest.Validate([]core.Policy{core.PerHour(limit)})
	require.NoError(t, err)

	keys := make([]string, 24)
	for i := range keys {
		keys[i] = fmt.Sprint("k", i)
	}
	var admins []*redis.Client
	for _, m := range cl.Masters {
		admins = append(admins, m.Client(t))
	}
	stop := make(chan struct{})
	var flushes sync.WaitGroup
	for _, a := range admins {
		flushes.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				_ = a.ScriptFlush(ctx).Err()
				time.Sleep(200 * time.Microsecond)
			}
		})
	}

	const workers, each = 48, 40
	allowed := make([]atomic.Int64, len(keys))
	var failed atomic.Int64
	var firstErr atomic.Value
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				k := (w*7 + i) % len(keys)
				res, err := s.Take(ctx, keys[k], ps, 1, time.Now())
				if err != nil {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, err)
					continue
				}
				if res.States[0].Allowed {
					allowed[k].Add(1)
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	flushes.Wait()
	require.Positive(t, reloads.n.Load(), "batches met NOSCRIPT, and their requests were retried")

	require.Zero(t, failed.Load(), "every call is decided; first error: %v", firstErr.Load())
	var total int64
	for k, key := range keys {
		r, err := s.Peek(ctx, key, ps, 1, time.Now())
		require.NoError(t, err)
		charged := limit - r.States[0].Remaining
		assert.Equal(t, allowed[k].Load(), charged, "%s: Redis charged each allowed call once", key)
		total += charged
	}
	assert.Equal(t, int64(workers*each), total, "every call was charged once")
}

// Calls batched in pipelines on a Redis that refuses every script
// (READONLY: a replica) until it is made a master again, so each batch's
// requests are retried, all at once, while many of their callers (none
// with a deadline) are cancelled at every moment. A call that returns an
// error was not charged, and one that was charged returns its decision:
// what Redis counted for each key is exactly the number of calls for it
// that were allowed.
func TestPipelinedRetriesChargeOnlyTheCallsThatReturnADecision(t *testing.T) {
	srv := testredis.Server(t)
	admin := srv.Client(t)
	ctx := context.Background()
	c := redis.NewClient(&redis.Options{Addr: srv.Addr, PoolSize: 8, MaxRetries: -1})
	t.Cleanup(func() { _ = c.Close() })
	s, err := New(c, WithPrefix(testredis.Prefix(t)), WithClientTime())
	require.NoError(t, err)
	s.batch.slotted.Store(true) // batches are pipelines of script calls
	const limit = 1_000_000
	ps, err := policytest.Validate([]core.Policy{core.PerHour(limit)})
	require.NoError(t, err)
	require.NoError(t, admin.ReplicaOf(ctx, "127.0.0.1", "1").Err())
	t.Cleanup(func() { _ = admin.ReplicaOf(ctx, "NO", "ONE").Err() })
	time.AfterFunc(150*time.Millisecond, func() { _ = admin.ReplicaOf(ctx, "NO", "ONE").Err() })

	const workers, each = 32, 8
	keys := []string{"a", "b", "c", "d"}
	allowed := make([]atomic.Int64, len(keys))
	var failed atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				cctx, cancel := context.WithCancel(ctx)
				if (w+i)%2 == 0 {
					time.AfterFunc(time.Duration((w*each+i)%150)*time.Millisecond, cancel)
				}
				k := (w + i) % len(keys)
				r, err := s.Take(cctx, keys[k], ps, 1, time.Now())
				cancel()
				switch {
				case err != nil:
					failed.Add(1)
				case r.States[0].Allowed:
					allowed[k].Add(1)
				}
			}
		})
	}
	wg.Wait()
	t.Logf("%d calls failed, uncharged", failed.Load())

	for k, key := range keys {
		r, err := s.Peek(ctx, key, ps, 1, time.Now())
		require.NoError(t, err)
		assert.Equal(t, allowed[k].Load(), limit-r.States[0].Remaining,
			"%s: the calls that returned a decision were charged, and only they", key)
	}
}
