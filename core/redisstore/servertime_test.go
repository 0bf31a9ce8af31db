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

// With WithServerTime a sliding log records a request at Redis's TIME, to
// the microsecond, rounded up to the millisecond: between Redis's clock
// before the call and after it, whatever the now passed in. Both scripts
// (one policy, several).
func TestServerTimeExact(t *testing.T) {
	c := testredis.Standalone(t)
	ctx := context.Background()
	log := core.PerHour(100).Named("log").Using(core.SlidingLog)
	for name, ps := range map[string][]core.Policy{
		"one":  policies(t, log),
		"many": policies(t, log, core.PerHour(100).Using(core.FixedWindow)),
	} {
		t.Run(name, func(t *testing.T) {
			s, prefix := store(t, c, redisstore.WithServerTime())
			for range 5 {
				before := c.Time(ctx).Val()
				_, err := s.Take(ctx, "u", ps, 1, time.Unix(0, 0))
				require.NoError(t, err)
				after := c.Time(ctx).Val()
				members, err := c.ZRangeWithScores(ctx, prefix+":{u}:l1h:e8i8Su", -1, -1).Result()
				require.NoError(t, err)
				require.Len(t, members, 1)
				at := int64(members[0].Score)
				assert.GreaterOrEqual(t, at, before.UnixMilli(), "recorded at Redis's TIME, not before")
				assert.LessOrEqual(t, at, after.Add(time.Millisecond-1).UnixMilli(), "recorded at Redis's TIME rounded up, not after")
				time.Sleep(3 * time.Millisecond)
			}
		})
	}
}
