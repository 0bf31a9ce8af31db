package redisstore_test

import (
	"context"
	"fmt"
	"strings"
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

// answerLog records the error answers a client gets and each batch
// call's answers in order. It runs onFirst once, on the first answer that
// starts with prefix.
type answerLog struct {
	mu      sync.Mutex
	answers []string
	batches map[string][]string // a batch call's arguments: its answers
	prefix  string
	onFirst func()
	onBatch func() // run once, on the first batch call that meets CLUSTERDOWN
}

func (l *answerLog) note(cmd redis.Cmder, err error) {
	if err == nil {
		return
	}
	l.mu.Lock()
	l.answers = append(l.answers, err.Error())
	if args := cmd.Args(); len(args) > 2 {
		if n, ok := args[2].(int); ok && n > 1 {
			if l.batches == nil {
				l.batches = map[string][]string{}
			}
			call := fmt.Sprint(args[2:]...) // EVALSHA or EVAL: the same call
			l.batches[call] = append(l.batches[call], err.Error())
			if l.onBatch != nil && redis.HasErrorPrefix(err, "CLUSTERDOWN") {
				f := l.onBatch
				l.onBatch = nil
				l.mu.Unlock()
				f()
				return
			}
		}
	}
	run := l.onFirst != nil && redis.HasErrorPrefix(err, l.prefix)
	f := l.onFirst
	if run {
		l.onFirst = nil
	}
	l.mu.Unlock()
	if run {
		f()
	}
}

func (l *answerLog) count(prefix string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, a := range l.answers {
		if strings.HasPrefix(a, prefix) {
			n++
		}
	}
	return n
}

// batchesAnswered counts the batch calls that got first and then later.
func (l *answerLog) batchesAnswered(first, later string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, as := range l.batches {
		for i := 1; i < len(as); i++ {
			if strings.HasPrefix(as[0], first) && strings.HasPrefix(as[i], later) {
				n++
				break
			}
		}
	}
	return n
}

func (l *answerLog) DialHook(next redis.DialHook) redis.DialHook { return next }

func (l *answerLog) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		l.note(cmd, err) // go-redis sets cmd.Err() only after the hooks return
		return err
	}
}

func (l *answerLog) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		for _, c := range cmds {
			l.note(c, c.Err())
		}
		return err
	}
}

// A standalone client on a node of a cluster that is still forming: the
// key's slot has no master at the first attempt (CLUSTERDOWN, which is
// retried), then another master takes it and the node answers MOVED.
// That MOVED is a configuration error as much as a first-attempt one:
// the call ends at once with ErrMisconfigured, and is not sent again.
// Before, only a MOVED at the first attempt was; a later one was retried
// until the caller's deadline and came back as a plain MOVED error.
func TestMovedAfterRetryIsMisconfigured(t *testing.T) {
	cl, admins := partialCluster(t)
	ctx := context.Background()

	// A key of a slot that the first master does not serve.
	var key string
	var slot, owner int
	//lint:ignore SA1019 CLUSTER SLOTS is the map go-redis's cluster client reads; Redis 7.0 serves it.
	slots, err := admins[0].ClusterSlots(ctx).Result()
	require.NoError(t, err)
	for i := 0; key == ""; i++ {
		k := fmt.Sprint("user-", i)
		s := int(admins[0].ClusterKeySlot(ctx, k).Val())
		for _, r := range slots {
			if r.Start <= s && s <= r.End && r.Nodes[0].Addr != cl.Masters[0].Addr {
				key, slot = k, s
				for j, m := range cl.Masters {
					if m.Addr == r.Nodes[0].Addr {
						owner = j
					}
				}
			}
		}
	}
	require.NotZero(t, owner)
	delSlots(t, admins, slot, slot)

	c := redis.NewClient(&redis.Options{Addr: cl.Masters[0].Addr})
	t.Cleanup(func() { _ = c.Close() })
	log := &answerLog{prefix: "CLUSTERDOWN", onFirst: func() {
		// The slot gets its master back; wait until the first master
		// knows, so the next attempt meets MOVED.
		require.NoError(t, admins[owner].ClusterAddSlots(ctx, slot).Err())
		require.Eventually(t, func() bool {
			info, err := admins[0].ClusterInfo(ctx).Result()
			return err == nil && strings.Contains(info, "cluster_slots_assigned:16384\r")
		}, 10*time.Second, 10*time.Millisecond)
	}}
	c.AddHook(log)
	s, err := redisstore.New(c, redisstore.WithPrefix(testredis.Prefix(t)))
	require.NoError(t, err)

	callCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_, err = s.Take(callCtx, key, policies(t, core.PerMinute(10)), 1, time.Now())
	require.Error(t, err)
	assert.Positive(t, log.count("CLUSTERDOWN"), "the first attempt met a slot with no master")
	assert.Equal(t, 1, log.count("MOVED"), "MOVED ends the retries")
	assert.ErrorIs(t, err, redisstore.ErrMisconfigured)
	assert.Contains(t, err.Error(), "MOVED")
}

// An endpoint that enforces slots behind one address (a single-node
// cluster) while it still forms: a batch sent while its first key's slot
// is not served meets CLUSTERDOWN and is retried; then every slot is
// served, and the retried batch, whose keys span slots, meets CROSSSLOT.
// That answer ends the retries as at a first attempt: the batch is sent
// again one slot per call, and every call is decided, charged once.
func TestCrossSlotAfterRetryIsSentPerSlot(t *testing.T) {
	node := testredis.SingleNodeCluster(t)
	admin := node.Client(t)
	ctx := context.Background()
	require.NoError(t, admin.ConfigSet(ctx, "cluster-require-full-coverage", "no").Err())
	require.NoError(t, admin.Do(ctx, "CLUSTER", "DELSLOTSRANGE", 1, 16383).Err())
	require.Eventually(t, func() bool {
		info, err := admin.ClusterInfo(ctx).Result()
		return err == nil && strings.Contains(info, "cluster_slots_assigned:1\r")
	}, 10*time.Second, 10*time.Millisecond)

	c := redis.NewClient(&redis.Options{Addr: node.Addr})
	t.Cleanup(func() { _ = c.Close() })
	log := &answerLog{}
	c.AddHook(log)
	s, err := redisstore.New(c, redisstore.WithPrefix(testredis.Prefix(t)))
	require.NoError(t, err)
	ps := policies(t, core.PerMinute(10))
	now := time.Now()
	// Once a batch met CLUSTERDOWN, every slot is served again.
	log.onBatch = func() {
		require.NoError(t, admin.Do(ctx, "CLUSTER", "ADDSLOTSRANGE", 1, 16383).Err())
		require.Eventually(t, func() bool {
			info, err := admin.ClusterInfo(ctx).Result()
			return err == nil && strings.Contains(info, "cluster_slots_assigned:16384\r")
		}, 10*time.Second, 10*time.Millisecond)
	}

	// Two callers that give up soon hold both round trips, retrying
	// CLUSTERDOWN, while the others queue: their batch goes out when the
	// two give up, the slots still unserved.
	var wg sync.WaitGroup
	for g := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
			defer cancel()
			// Its result does not matter: it fails unless it went in a
			// batch with the other one.
			_, _ = s.Take(short, fmt.Sprint("early", g), ps, 1, now)
		}()
	}
	time.Sleep(100 * time.Millisecond)
	const goroutines = 30
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			callCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			_, err := s.Take(callCtx, fmt.Sprint("k", g), ps, 1, now)
			assert.NoError(t, err)
		}()
	}
	wg.Wait()
	require.Positive(t, log.batchesAnswered("CLUSTERDOWN", "CROSSSLOT"), "a retried batch met CROSSSLOT")
	for g := range goroutines {
		r, err := s.Peek(ctx, fmt.Sprint("k", g), ps, 1, now)
		require.NoError(t, err)
		assert.Equal(t, int64(9), r.States[0].Remaining, "key k%d charged once", g)
	}
}
