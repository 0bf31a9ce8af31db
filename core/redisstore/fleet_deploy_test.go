package redisstore_test

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

// TestFleetRollingDeploy: during a rolling deploy, processes with the old
// configuration and processes with the new one take turns on the same key,
// each with its own client and store on one Redis. A policy whose Name,
// Window and Algorithm are kept shares its counts between the two, whatever
// their Limits: the fleet admits the larger Limit, and the process with
// the smaller one denies past its own. A change of algorithm, window, name
// or prefix gives the new processes keys of their own: each half admits its
// own limit (docs/redis.md, Rolling deploys). No change makes a script
// fail on a key of another shape.
func TestFleetRollingDeploy(t *testing.T) {
	const limit = 10
	ctx := context.Background()
	base := core.PerMinute(limit).Named("api").Using(core.FixedWindow)
	tests := []struct {
		name       string
		old, new   core.Policy
		newPrefix  string // appended to the old prefix
		admitted   int    // by the whole fleet
		newAllowed int    // of those, by the new processes
	}{
		{"limit lowered", base, core.PerMinute(limit / 2).Named("api").Using(core.FixedWindow), "", limit, limit / 4},
		{"limit raised", base, core.PerMinute(2 * limit).Named("api").Using(core.FixedWindow), "", 2 * limit, 3 * limit / 2},
		{"fixed to sliding window", base, core.PerMinute(limit).Named("api"), "", 2 * limit, limit},
		{"fixed to sliding log", base, core.PerMinute(limit).Named("api").Using(core.SlidingLog), "", 2 * limit, limit},
		{"window changed", base, core.Per(limit, 2*time.Minute).Named("api").Using(core.FixedWindow), "", 2 * limit, limit},
		{"renamed", base, core.PerMinute(limit).Named("api-v2").Using(core.FixedWindow), "", 2 * limit, limit},
		{"prefix changed", base, base, ":v2", 2 * limit, limit},
	}
	for name := range testredis.Universal(t) {
		for _, tt := range tests {
			t.Run(name+"/"+tt.name, func(t *testing.T) {
				prefix := testredis.Prefix(t)
				process := func(p core.Policy, prefix string) *core.Limiter {
					s, err := redisstore.New(processClient(t, name), redisstore.WithPrefix(prefix))
					require.NoError(t, err)
					l, err := core.NewLimiter(s, []core.Policy{p})
					require.NoError(t, err)
					return l
				}
				oldP, newP := process(tt.old, prefix), process(tt.new, prefix+tt.newPrefix)
				// Not in the last seconds of a minute on Redis's clock, so
				// the burst falls in one window of every policy.
				now, err := testredis.Standalone(t).Time(ctx).Result()
				require.NoError(t, err)
				if left := now.Truncate(time.Minute).Add(time.Minute).Sub(now); left < 3*time.Second {
					time.Sleep(left + 10*time.Millisecond)
				}
				admitted, newAllowed := 0, 0
				for i := range 6 * limit {
					p := oldP
					if i%2 == 1 {
						p = newP
					}
					d, err := p.Allow(ctx, "user:1")
					require.NoError(t, err)
					if d.Allowed {
						admitted++
						if p == newP {
							newAllowed++
						}
					}
				}
				assert.Equal(t, tt.admitted, admitted, "admitted by the fleet")
				assert.Equal(t, tt.newAllowed, newAllowed, "admitted by the new processes")
			})
		}
	}
}
