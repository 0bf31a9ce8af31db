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

// answerLog records the error answers a client gets, and runs onFirst
// once, on the first answer that starts with prefix.
type answerLog struct {
	mu      sync.Mutex
	answers []string
	prefix  string
	onFirst func()
}

func (l *answerLog) note(err error) {
	if err == nil {
		return
	}
	l.mu.Lock()
	l.answers = append(l.answers, err.Error())
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

func (l *answerLog) DialHook(next redis.DialHook) redis.DialHook { return next }

func (l *answerLog) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		l.note(err)
		return err
	}
}

func (l *answerLog) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		for _, c := range cmds {
			l.note(c.Err())
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
