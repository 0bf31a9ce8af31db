package resilient_test

import (
	"context"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/redisstore"
	"github.com/ratewindow/ratewindow/core/resilient"
	"github.com/ratewindow/ratewindow/internal/clocktest"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// cable is a TCP path from one process to Redis that the test can cut:
// while cut, it closes every connection through it and every new one.
type cable struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	cut    bool
	conns  map[net.Conn]struct{}
}

func newCable(t *testing.T, target string) *cable {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	c := &cable{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	t.Cleanup(func() { _ = ln.Close(); c.setCut(true) })
	go c.serve()
	return c
}

func (c *cable) addr() string { return c.ln.Addr().String() }

func (c *cable) serve() {
	for {
		in, err := c.ln.Accept()
		if err != nil {
			return
		}
		go c.pipe(in)
	}
}

func (c *cable) pipe(in net.Conn) {
	out, err := net.DialTimeout("tcp", c.target, time.Second)
	if err != nil {
		_ = in.Close()
		return
	}
	c.mu.Lock()
	if c.cut {
		c.mu.Unlock()
		_ = in.Close()
		_ = out.Close()
		return
	}
	c.conns[in], c.conns[out] = struct{}{}, struct{}{}
	c.mu.Unlock()
	go func() { _, _ = io.Copy(out, in); _ = out.Close() }()
	_, _ = io.Copy(in, out)
	_ = in.Close()
}

// setCut cuts the cable (closing what goes through it) or mends it.
func (c *cable) setCut(cut bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cut = cut
	if cut {
		for conn := range c.conns {
			_ = conn.Close()
		}
		clear(c.conns)
	}
}

// TestFleetOutageAndRecovery: three processes of one service share a
// Redis, each with its own client and a resilient store WithFallback(3).
// Before the outage they spend part of a key's limit on Redis. While Redis
// is cut off from all three, each decides on its local share, limit / 3:
// the fleet admits the limit, on top of what it had spent on Redis (the
// local counts start empty, as documented). Once Redis is back, Redis
// decides again from the count it held: the outage's decisions are not
// copied to it, nothing acknowledged before is lost, and nothing is
// charged twice.
func TestFleetOutageAndRecovery(t *testing.T) {
	const limit, processes, before = 12, 3, 5
	ctx := context.Background()
	srv := testredis.Server(t)
	clock := clocktest.New(time.Now().Truncate(time.Hour))
	policies := []core.Policy{core.Per(limit, time.Hour).Using(core.FixedWindow)}

	var fleet []*core.Limiter
	var cables []*cable
	for range processes {
		cb := newCable(t, srv.Addr)
		opts := redisstore.ClientOptions(cb.addr())
		rdb := redis.NewUniversalClient(opts)
		t.Cleanup(func() { _ = rdb.Close() })
		rs, err := redisstore.New(rdb, redisstore.WithClientTime()) // on the fake clock
		require.NoError(t, err)
		store, err := resilient.New(rs, resilient.WithFallback(processes),
			resilient.WithOpenInterval(20*time.Millisecond))
		require.NoError(t, err)
		l, err := core.NewLimiter(store, policies, core.WithClock(clock))
		require.NoError(t, err)
		fleet = append(fleet, l)
		cables = append(cables, cb)
	}
	// onRedis counts the requests Redis admitted.
	onRedis := 0
	// take sends n requests round robin over the fleet and counts those
	// admitted, and those the fallback decided.
	take := func(n int) (admitted, local int) {
		for i := range n {
			d, err := fleet[i%processes].Allow(ctx, "user:1")
			require.NoError(t, err)
			if d.Allowed {
				admitted++
				if !d.Fallback {
					onRedis++
				}
			}
			if d.Fallback {
				local++
			}
		}
		return admitted, local
	}

	admitted, local := take(before)
	require.Equal(t, before, admitted)
	require.Zero(t, local)

	for _, cb := range cables {
		cb.setCut(true)
	}
	admitted, local = take(3 * limit)
	assert.Equal(t, 3*limit, local, "every decision of the outage is the fallback's")
	assert.Equal(t, limit, admitted, "the fleet admits its processes' shares, limit/3 each")

	for _, cb := range cables {
		cb.setCut(false)
	}
	require.Eventually(t, func() bool {
		_, local := take(processes)
		return local == 0
	}, 5*time.Second, 30*time.Millisecond, "Redis decides again")
	// Redis holds exactly what it admitted: the charges before the outage
	// and those of the calls that found it back, none of the outage's.
	peek, err := fleet[0].Peek(ctx, "user:1", 1)
	require.NoError(t, err)
	require.False(t, peek.Fallback)
	assert.Equal(t, limit-onRedis, int(peek.Remaining), "Redis counts what it admitted, once")
	_, local = take(2 * limit)
	assert.Zero(t, local)
	assert.Equal(t, limit, onRedis, "Redis admits the rest of its limit")
}
