package redisstore

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/policytest"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// gateHook holds the single-policy script calls sent alone until open is
// closed, and counts the script calls a node gets alone and its
// pipelines of script calls.
type gateHook struct {
	open      chan struct{}
	mu        sync.Mutex
	alone     int // EVALSHA or EVAL sent alone
	pipelines int // pipelines of script calls
}

func (h *gateHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *gateHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if name := cmd.Name(); name == "evalsha" || name == "eval" {
			h.mu.Lock()
			h.alone++
			h.mu.Unlock()
			if cmd.Args()[1] == oneScript.sha {
				<-h.open
			}
		}
		return next(ctx, cmd)
	}
}

func (h *gateHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		for _, cmd := range cmds {
			if cmd.Name() == "evalsha" {
				h.mu.Lock()
				h.pipelines++
				h.mu.Unlock()
				break
			}
		}
		return next(ctx, cmds)
	}
}

// A Cluster batch that meets NOSCRIPT (its master lost the scripts: a
// restart, a SCRIPT FLUSH, with a client whose connections do not load
// them as ClientOptions' do) is sent again as one batch once the script is
// loaded, not request by request. Here a master's scripts are flushed; two calls of the single-policy script go
// alone and are held, so 62 calls of the two-policy script queue and go
// in one pipeline, and all meet NOSCRIPT. Before, each of the 62 was sent
// again on its own, 63 more round trips one after another (an EVALSHA
// each, and an EVAL for the first); now one pipeline more.
func TestClusterBatchReloadsScriptOnce(t *testing.T) {
	cl := testredis.StartCluster(t, 3, 0, 5*time.Second)
	opts := ClientOptions(cl.Addrs()...)
	opts.ReadTimeout = 5 * time.Second
	opts.OnConnect = nil // as a client of options of its own: connections do not load the scripts
	client := redis.NewUniversalClient(opts).(*redis.ClusterClient)
	t.Cleanup(func() { _ = client.Close() })
	s, err := New(client, WithPrefix(testredis.Prefix(t)))
	require.NoError(t, err)
	ctx := context.Background()
	require.NoError(t, s.Check(ctx))
	one, err := policytest.Validate([]core.Policy{core.PerHour(1_000_000)})
	require.NoError(t, err)
	two, err := policytest.Validate([]core.Policy{core.PerHour(1_000_000).Named("a"), core.PerHour(1_000_000).Named("b")})
	require.NoError(t, err)
	var keys []string // keys of the first master's slots
	for i := 0; len(keys) < 64; i++ {
		if k := fmt.Sprint("key", i); keySlot(k) < 16384/3 {
			keys = append(keys, k)
		}
	}
	_, err = s.Take(ctx, keys[0], one, 1, time.Now()) // the store finds the slot map
	require.NoError(t, err)
	node, err := client.MasterForKey(ctx, keys[0])
	require.NoError(t, err)
	require.Equal(t, cl.Masters[0].Addr, node.Options().Addr)
	b := s.nodeBatcher(ctx, s.newRequest(keys[0], one, 1, 0, true))
	require.NotNil(t, b)
	require.NoError(t, cl.Masters[0].Client(t).ScriptFlush(ctx).Err())
	hook := &gateHook{open: make(chan struct{})}
	node.AddHook(hook)

	var wg sync.WaitGroup
	errs := make(chan error, len(keys))
	take := func(k string, ps []core.Policy) {
		wg.Go(func() {
			_, err := s.Take(ctx, k, ps, 1, time.Now())
			errs <- err
		})
	}
	state := func() (inFlight, queued int) {
		b.mu.Lock()
		defer b.mu.Unlock()
		return b.inFlight, len(b.queue)
	}
	take(keys[0], one)
	take(keys[1], one)
	require.Eventually(t, func() bool { n, _ := state(); return n == maxInFlight }, 10*time.Second, time.Millisecond)
	for _, k := range keys[2:] {
		take(k, two)
	}
	require.Eventually(t, func() bool { _, q := state(); return q == len(keys)-2 }, 10*time.Second, time.Millisecond)
	close(hook.open)
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	hook.mu.Lock()
	defer hook.mu.Unlock()
	t.Logf("script calls sent alone: %d, pipelines: %d", hook.alone, hook.pipelines)
	// The two calls sent alone: EVALSHA, and EVAL if it met NOSCRIPT.
	assert.LessOrEqual(t, hook.alone, 4, "the queued calls were sent in pipelines, not one by one")
	assert.Equal(t, 2, hook.pipelines, "the batch, and once more with the script loaded")
}
