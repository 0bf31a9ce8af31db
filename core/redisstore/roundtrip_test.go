package redisstore_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// counter is a go-redis hook that counts the commands a client sends.
type counter struct {
	mu   sync.Mutex
	cmds map[string]int
}

func (c *counter) DialHook(next redis.DialHook) redis.DialHook { return next }

func (c *counter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		c.mu.Lock()
		c.cmds[strings.ToLower(cmd.Name())]++
		c.mu.Unlock()
		return next(ctx, cmd)
	}
}

func (c *counter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		c.mu.Lock()
		for _, cmd := range cmds {
			c.cmds["pipeline:"+strings.ToLower(cmd.Name())]++
		}
		c.mu.Unlock()
		return next(ctx, cmds)
	}
}

func (c *counter) take() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.cmds
	c.cmds = map[string]int{}
	return m
}

// In steady state a Take or Peek is exactly one EVALSHA, whatever the mix of
// policies (one.lua for one, many.lua for several): no script loading, no
// extra reads.
func TestOneRoundTrip(t *testing.T) {
	sets := map[string][]core.Policy{
		"one": policies(t, core.PerMinute(50).Named("s")),
		"many": policies(t,
			core.PerMinute(50).Named("f").Using(core.FixedWindow),
			core.PerMinute(50).Named("s"),
			core.PerMinute(50).Named("l").Using(core.SlidingLog),
		),
	}
	for name, c := range testredis.Universal(t) {
		hook := &counter{cmds: map[string]int{}}
		c.AddHook(hook)
		for set, ps := range sets {
			t.Run(name+"/"+set, func(t *testing.T) {
				s, _ := store(t, c)
				ctx := context.Background()
				// The first call on a node may load the script there
				// (EVALSHA, NOSCRIPT, EVAL); warm up on the key's own node.
				_, err := s.Peek(ctx, "k", ps, 1, base)
				require.NoError(t, err)
				hook.take()
				const n = 20
				for i := range n {
					_, err := s.Take(ctx, "k", ps, 1, base)
					require.NoError(t, err)
					_, err = s.Peek(ctx, "k", ps, 1, base)
					require.NoError(t, err, "call %d", i)
				}
				assert.Equal(t, map[string]int{"evalsha": 2 * n}, hook.take())
			})
		}
	}
}
