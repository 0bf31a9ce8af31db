package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
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

// batchCounter counts the script calls that decide several requests: one
// EVALSHA with more keys than one request has (a standalone batch), or a
// pipeline of several EVALSHA (a cluster batch, sent through the masters'
// own clients: see watch).
type batchCounter struct {
	mu      sync.Mutex
	perCall int // keys of one request
	batched int
}

func (c *batchCounter) DialHook(next redis.DialHook) redis.DialHook { return next }

func (c *batchCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if cmd.Name() == "evalsha" {
			if n, ok := cmd.Args()[2].(int); ok && n > c.perCall {
				c.mu.Lock()
				c.batched++
				c.mu.Unlock()
			}
		}
		return next(ctx, cmd)
	}
}

func (c *batchCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		evals := 0
		for _, cmd := range cmds {
			if cmd.Name() == "evalsha" {
				evals++
			}
		}
		if evals > 1 {
			c.mu.Lock()
			c.batched++
			c.mu.Unlock()
		}
		return next(ctx, cmds)
	}
}

// watch adds c to client, and to every master's client of a cluster.
func (c *batchCounter) watch(t *testing.T, client redis.UniversalClient) {
	client.AddHook(c)
	if cc, ok := client.(*redis.ClusterClient); ok {
		require.NoError(t, cc.ForEachMaster(context.Background(), func(_ context.Context, n *redis.Client) error {
			n.AddHook(c)
			return nil
		}))
	}
}

func (c *batchCounter) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.batched
}

// Many goroutines on many keys through one store, on a standalone Redis
// and on the cluster: calls go in batches, and every decision is one the
// same requests would have had one at a time. Per key exactly limit
// requests are admitted, and the Remaining of the admitted ones are
// exactly limit-1 ... 0 (each admitted request saw the ones before it,
// and no other); with two policies the second is charged exactly as often
// (all or nothing).
func TestBatchExact(t *testing.T) {
	const (
		goroutines = 64
		perG       = 24
		keys       = 16
		limit      = 40
		second     = 60 // the second policy's limit, in the two-policy case
	)
	type mix struct {
		ps   []core.Policy
		opts []redisstore.Option
	}
	mixes := map[string]mix{
		"fixed":   {ps: []core.Policy{core.PerMinute(limit).Using(core.FixedWindow)}},
		"sliding": {ps: []core.Policy{core.PerMinute(limit).Using(core.SlidingWindow)}},
		"log":     {ps: []core.Policy{core.PerMinute(limit).Using(core.SlidingLog)}},
		"two":     {ps: []core.Policy{core.PerMinute(limit).Named("a").Using(core.FixedWindow), core.PerMinute(second).Named("b").Using(core.SlidingLog)}},
		// The batch reads Redis TIME once for all its requests. A log of
		// an hour: no window ends during the test.
		"servertime": {ps: []core.Policy{core.PerHour(limit).Using(core.SlidingLog)}, opts: []redisstore.Option{redisstore.WithServerTime()}},
	}
	for name, c := range testredis.Universal(t) {
		t.Run(name, func(t *testing.T) {
			for mixName, mix := range mixes {
				t.Run(mixName, func(t *testing.T) {
					ps := policies(t, mix.ps...)
					hook := &batchCounter{perCall: len(ps)}
					hook.watch(t, c)
					s, _ := store(t, c, mix.opts...)
					remaining, seconds := takeConcurrently(t, s, ps, goroutines, perG, keys)
					for k := range keys {
						assert.Equal(t, countdown(limit-1, 0), sorted(remaining[k]), "key %d: the admitted requests' Remaining", k)
						if len(ps) == 2 {
							assert.Equal(t, countdown(second-1, second-limit), sorted(seconds[k]), "key %d: the second policy charged with the first", k)
						}
					}
					assert.Positive(t, hook.count(), "some calls went in batches")
				})
			}
		})
	}
}

// takeConcurrently makes perG calls of s from each of goroutines
// goroutines, all at base, spread over keys keys ("user:<k>"), and returns
// per key the Remaining of the first policy and, with two policies, of the
// second, for every request all of ps admitted. A denied request must
// have seen the first policy's count full and be told to retry later; no
// call may fail.
func takeConcurrently(t *testing.T, s core.Store, ps []core.Policy, goroutines, perG, keys int) (first, second [][]int64) {
	t.Helper()
	type decision struct {
		key int
		r   core.Result
	}
	results := make(chan decision, goroutines*perG)
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range perG {
				k := (g + i) % keys
				r, err := s.Take(context.Background(), fmt.Sprint("user:", k), ps, 1, base)
				if !assert.NoError(t, err) {
					return
				}
				results <- decision{k, r}
			}
		})
	}
	wg.Wait()
	close(results)
	first = make([][]int64, keys)
	second = make([][]int64, keys)
	for d := range results {
		st := d.r.States
		allowed := true
		for i := range ps {
			allowed = allowed && st[i].Allowed
		}
		if !allowed {
			assert.Zero(t, st[0].Remaining, "a denied request saw the key full")
			assert.Positive(t, st[0].RetryAfter)
			continue
		}
		first[d.key] = append(first[d.key], st[0].Remaining)
		if len(ps) == 2 {
			second[d.key] = append(second[d.key], st[1].Remaining)
		}
	}
	return first, second
}

// countdown returns from, from-1, ..., to.
func countdown(from, to int64) []int64 {
	var out []int64
	for v := from; v >= to; v-- {
		out = append(out, v)
	}
	return out
}

func sorted(v []int64) []int64 {
	out := append([]int64(nil), v...)
	sort.Slice(out, func(i, j int) bool { return out[i] > out[j] })
	return out
}

// One limiter key whose Redis key holds a value of another type fails
// every time, and only it: the requests batched with it are decided as
// usual.
func TestBatchOneKeyFails(t *testing.T) {
	const goroutines, perG = 32, 20
	for name, c := range testredis.Universal(t) {
		t.Run(name, func(t *testing.T) {
			hook := &batchCounter{perCall: 1}
			hook.watch(t, c)
			s, prefix := store(t, c)
			ps := policies(t, core.PerMinute(1_000_000).Using(core.SlidingLog))
			ctx := context.Background()
			// The bad key's Redis key: its one key, after a first Take.
			_, err := s.Take(ctx, "bad", ps, 1, base)
			require.NoError(t, err)
			keys := prefixKeys(t, c, prefix)
			require.Len(t, keys, 1)
			require.NoError(t, c.Set(ctx, keys[0], "not a sorted set", 0).Err())

			var wg sync.WaitGroup
			var mu sync.Mutex
			good := 0
			for g := range goroutines {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range perG {
						key := fmt.Sprint("good:", g, ":", i%4)
						if (g+i)%5 == 0 {
							key = "bad"
						}
						r, err := s.Take(ctx, key, ps, 1, base)
						if key == "bad" {
							assert.ErrorContains(t, err, "WRONGTYPE")
							assert.False(t, errors.Is(err, redisstore.ErrOutOfMemory))
							continue
						}
						if assert.NoError(t, err, key) && assert.True(t, r.States[0].Allowed) {
							mu.Lock()
							good++
							mu.Unlock()
						}
					}
				}()
			}
			wg.Wait()
			assert.Equal(t, goroutines*perG*4/5, good)
			assert.Positive(t, hook.count(), "some calls went in batches")
		})
	}
}

// Callers whose deadline ends while their calls wait for a silent Redis
// return by their deadline with its error, whether they were sent alone,
// in a batch, or still queued.
func TestBatchDeadline(t *testing.T) {
	const deadline = 150 * time.Millisecond
	const bound = 3 * time.Second // the client's own timeouts are 10 s
	c := redis.NewClient(&redis.Options{
		Addr:        silentServer(t),
		DialTimeout: 10 * time.Second,
		ReadTimeout: 10 * time.Second,
		PoolSize:    32,
	})
	t.Cleanup(func() { _ = c.Close() })
	s, err := redisstore.New(c)
	require.NoError(t, err)
	ps := policies(t, core.PerSecond(5))
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), deadline)
			defer cancel()
			start := time.Now()
			_, err := s.Take(ctx, fmt.Sprint("k", g), ps, 1, base)
			assert.ErrorIs(t, err, context.DeadlineExceeded)
			assert.Less(t, time.Since(start), bound)
		}()
	}
	wg.Wait()
}

// A standalone client on one node of a cluster, under concurrent calls:
// whether a call went alone or in a batch (whose keys span slots: the
// batch meets CROSSSLOT, and its calls are sent again one slot each), a
// call for a key of another master meets MOVED, which reports a
// configuration error.
func TestBatchOnClusterNodeIsMisconfigured(t *testing.T) {
	c := redis.NewUniversalClient(redisstore.ClientOptions(testredis.ClusterAddrs(t)[0]))
	defer c.Close()
	hook := &batchCounter{perCall: 1}
	hook.watch(t, c)
	s, err := redisstore.New(c, redisstore.WithPrefix(testredis.Prefix(t)))
	require.NoError(t, err)
	ps := policies(t, core.PerMinute(10))
	var wg sync.WaitGroup
	for g := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 10 {
				_, err := s.Take(context.Background(), fmt.Sprint("k", g, ":", i), ps, 1, time.Now())
				if err != nil {
					assert.ErrorIs(t, err, redisstore.ErrMisconfigured)
				}
			}
		}()
	}
	wg.Wait()
	assert.Positive(t, hook.count(), "some calls went in batches")
}
