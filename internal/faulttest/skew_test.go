package faulttest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/redisstore"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// skewed is an application node's clock that runs ahead of the others.
type skewed struct{ ahead time.Duration }

func (c skewed) Now() time.Time { return time.Now().Add(c.ahead) }

// TestSkewedClocksAgreeOnServerTime: two application nodes whose clocks
// differ by 7 seconds share one Redis. By default (server time) the
// windows are those of the Redis clock, and the two enforce one limit
// together. With the nodes' own clocks (redisstore.WithClientTime) and a
// window shorter than the skew, the request node A makes before node B
// first moves the key to B's (later) window is counted in a window B
// never sees: the pair admits one more than the limit (afterwards the
// stores' rule that time never runs backward makes A count in B's window).
func TestSkewedClocksAgreeOnServerTime(t *testing.T) {
	t.Parallel()
	const limit, skew, window = 10, 7 * time.Second, 5 * time.Second
	rdb := testredis.Standalone(t)
	ctx := context.Background()

	tests := []struct {
		name       string
		serverTime bool
		alg        core.Algorithm
		admitted   int
	}{
		{"server time, fixed window", true, core.FixedWindow, limit},
		{"server time, sliding window", true, core.SlidingWindow, limit},
		{"server time, sliding log", true, core.SlidingLog, limit},
		{"node clocks, fixed window", false, core.FixedWindow, limit + 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := []redisstore.Option{redisstore.WithPrefix(testredis.Prefix(t))}
			if !tt.serverTime {
				opts = append(opts, redisstore.WithClientTime())
			}
			store, err := redisstore.New(rdb, opts...)
			require.NoError(t, err)
			ps := []core.Policy{core.Per(limit, window).Using(tt.alg)}
			nodeA, err := core.NewLimiter(store, ps, core.WithClock(skewed{}))
			require.NoError(t, err)
			nodeB, err := core.NewLimiter(store, ps, core.WithClock(skewed{ahead: skew}))
			require.NoError(t, err)

			// Start the burst in the first second of a window of the Redis
			// clock, so it straddles neither two of those nor two of node
			// B's, which begin 3 s into each (it takes well under a second;
			// 2 s of slack for a loaded machine).
			now, err := rdb.Time(ctx).Result()
			require.NoError(t, err)
			if into := now.Sub(now.Truncate(window)); into > time.Second {
				time.Sleep(window - into + 10*time.Millisecond)
			}

			admitted := 0
			for i := range 3 * limit {
				node := nodeA
				if i%2 == 1 {
					node = nodeB
				}
				d, err := node.Allow(ctx, "shared")
				require.NoError(t, err)
				if d.Allowed {
					admitted++
				}
			}
			assert.Equal(t, tt.admitted, admitted)
		})
	}
}
