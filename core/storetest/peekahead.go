package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
)

// runPeekAhead: a Peek from a clock ahead of the others (another node's,
// seconds or a day ahead) changes nothing: the key's counts are still
// there for the Takes on the present clock.
func runPeekAhead(t *testing.T, s core.Store) {
	ctx := context.Background()
	for alg, retry := range map[core.Algorithm]time.Duration{
		core.FixedWindow:   999 * time.Millisecond,
		core.SlidingWindow: 1499 * time.Millisecond, // 2·(1000 − e) ≤ 1000 in the next bucket
		core.SlidingLog:    999 * time.Millisecond,
	} {
		ps := policy(alg, 2, time.Second)
		key := "ahead-" + alg.String()
		r, err := s.Take(ctx, key, ps, 2, at(0))
		require.NoError(t, err)
		require.True(t, r.States[0].Allowed)
		for _, ahead := range []int64{2000, 5000, day.Milliseconds()} {
			p, err := s.Peek(ctx, key, ps, 2, at(ahead))
			require.NoError(t, err)
			require.Equal(t, core.PolicyState{Allowed: true, Remaining: 2}, p.States[0], "%v: Peek %dms ahead", alg, ahead)
			r, err = s.Take(ctx, key, ps, 1, at(1))
			require.NoError(t, err)
			require.False(t, r.States[0].Allowed, "%v: the counts were lost to a Peek %dms ahead", alg, ahead)
			require.Equal(t, retry, r.States[0].RetryAfter, "%v: after a Peek %dms ahead", alg, ahead)
		}
	}
}
