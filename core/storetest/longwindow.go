package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
)

const day = 24 * time.Hour

// runLongWindows: a policy of a week keeps a key's counts for as long as
// they count, however long the key stays idle in between (a store must
// not let a key expire before its longest window has passed), and its
// RetryAfter is exact and honest. The instants are aligned to the week.
// A policy of ten years (more milliseconds than 32 bits hold) still
// denies two months after it was filled.
func runLongWindows(t *testing.T, newStore func(t *testing.T) core.Store) {
	t.Run("Decades", func(t *testing.T) { runDecades(t, newStore) })
	ctx := context.Background()
	week := (7 * day).Milliseconds()
	start := -(base.UnixMilli() % week) // a week starts start ms after base
	for alg, retry := range map[core.Algorithm]time.Duration{
		core.FixedWindow: 4 * day, // until the window ends
		// Into the next bucket, until 3·(W − e) ≤ 2·W: e = W/3.
		core.SlidingWindow: 4*day + 56*time.Hour,
		core.SlidingLog:    4*day + time.Hour, // until the requests leave
	} {
		t.Run(alg.String(), func(t *testing.T) {
			s := newStore(t)
			ps := validated(t, core.Per(3, 7*day).Using(alg))
			r, err := s.Take(ctx, "week", ps, 3, at(start+time.Hour.Milliseconds()))
			require.NoError(t, err)
			require.True(t, r.States[0].Allowed)
			// Three days without a call.
			now := start + (3 * day).Milliseconds()
			r, err = s.Take(ctx, "week", ps, 1, at(now))
			require.NoError(t, err)
			require.False(t, r.States[0].Allowed, "the key's counts were lost while it was idle")
			require.Equal(t, retry, r.States[0].RetryAfter)
			requireHonest(t, s, "week", ps, 1, now, retry)
		})
	}
}

// runDecades fills a policy of ten years and comes back 60 days later,
// past 2^32 ms: the sliding log and counter still deny (60 days is within
// the log's window, and short of the two thirds of a window after which
// the counter's estimate could fall under the limit, wherever the buckets
// lie), and every algorithm's RetryAfter is honest. The fixed window may
// have ended in between, as the suite's instants are not aligned to it.
func runDecades(t *testing.T, newStore func(t *testing.T) core.Store) {
	ctx := context.Background()
	const window = 3650 * day
	later := (60 * day).Milliseconds()
	for _, alg := range []core.Algorithm{core.FixedWindow, core.SlidingWindow, core.SlidingLog} {
		t.Run(alg.String(), func(t *testing.T) {
			s := newStore(t)
			ps := validated(t, core.Per(3, window).Using(alg))
			r, err := s.Take(ctx, "decade", ps, 3, at(0))
			require.NoError(t, err)
			require.True(t, r.States[0].Allowed)
			r, err = s.Take(ctx, "decade", ps, 1, at(later))
			require.NoError(t, err)
			if alg == core.FixedWindow && r.States[0].Allowed {
				return
			}
			require.False(t, r.States[0].Allowed, "60 days into a window of %v", window)
			if alg == core.SlidingLog {
				require.Equal(t, window-60*day, r.States[0].RetryAfter)
			}
			requireHonest(t, s, "decade", ps, 1, later, r.States[0].RetryAfter)
		})
	}
}
