package redisstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// A request that costs more than the limit is denied with the same answer
// as the memory store's, to the millisecond, on every algorithm: the
// conformance suite's costs stay within the limit, where the sliding
// counter's RetryAfter never divides a negative number (which Lua must
// truncate toward zero, as Go does).
func TestCostAboveLimitAgrees(t *testing.T) {
	c := testredis.Standalone(t)
	ctx := context.Background()
	for _, alg := range []core.Algorithm{core.FixedWindow, core.SlidingWindow, core.SlidingLog} {
		t.Run(alg.String(), func(t *testing.T) {
			s, _ := store(t, c)
			mem := memory.New()
			ps := policies(t, core.Per(5, time.Second).Using(alg))
			for i, st := range []struct {
				at   int64 // ms after base
				cost int64
			}{
				{0, 1}, {10, 1}, {20, 1}, {30, 7}, {40, 6},
				{1100, 1}, {1200, 7}, {1300, 8}, {1350, 1}, {1400, 11}, {2500, 9}, {4000, 6},
			} {
				now := base.Add(time.Duration(st.at) * time.Millisecond)
				want, err := mem.Take(ctx, "u", ps, st.cost, now)
				require.NoError(t, err)
				got, err := s.Take(ctx, "u", ps, st.cost, now)
				require.NoError(t, err)
				require.Equal(t, want.States[0], got.States[0], "step %d: cost %d at %d", i, st.cost, st.at)
			}
		})
	}
}
