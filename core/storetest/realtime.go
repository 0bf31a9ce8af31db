package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
)

// runRealTime admits requests at instants between whole milliseconds: a
// sliding log must never hold more than its limit in any real interval of
// length W, so a request 999.9 ms after the first of a full log is denied.
// A Peek at each of those instants says what the Take then does. A fixed
// window or sliding counter counts an instant between milliseconds in the
// window that holds it, not in the next.
func runRealTime(t *testing.T, s core.Store) {
	ctx := context.Background()
	ps := policy(core.SlidingLog, 3, time.Second)
	take := func(us int64) core.PolicyState {
		t.Helper()
		now := base.Add(time.Duration(us) * time.Microsecond)
		p, err := s.Peek(ctx, "real", ps, 1, now)
		require.NoError(t, err)
		r, err := s.Take(ctx, "real", ps, 1, now)
		require.NoError(t, err)
		require.Equal(t, r.States[0].Allowed, p.States[0].Allowed, "Peek and Take at %dµs", us)
		require.Equal(t, r.States[0].RetryAfter, p.States[0].RetryAfter, "Peek and Take at %dµs", us)
		return r.States[0]
	}
	for _, when := range []int64{300, 400, 999} {
		require.True(t, take(when).Allowed)
	}
	// 1000.2 ms after base is 999.9 ms after the first request.
	st := take(1_000_200)
	require.False(t, st.Allowed, "4 requests within 999.9ms")
	require.Equal(t, time.Millisecond, st.RetryAfter)
	require.False(t, take(1_000_900).Allowed, "4 requests within 1000.6ms of real time")
	require.True(t, take(1_001_000).Allowed, "1000.7ms after the first: it has left the window")

	// A fixed window or a sliding counter's bucket ends at a whole
	// millisecond: 999.9 ms is still in the first one.
	for _, alg := range []core.Algorithm{core.FixedWindow, core.SlidingWindow} {
		ps := policy(alg, 2, time.Second)
		key := "real-" + alg.String()
		for _, us := range []int64{500, 500_500} {
			r, err := s.Take(ctx, key, ps, 1, base.Add(time.Duration(us)*time.Microsecond))
			require.NoError(t, err)
			require.True(t, r.States[0].Allowed, alg)
		}
		r, err := s.Take(ctx, key, ps, 1, base.Add(999_900*time.Microsecond))
		require.NoError(t, err)
		require.False(t, r.States[0].Allowed, "%v: 3 requests within the first window", alg)
		if alg == core.FixedWindow {
			require.Equal(t, time.Millisecond, r.States[0].RetryAfter)
			r, err = s.Take(ctx, key, ps, 1, base.Add(time.Second))
			require.NoError(t, err)
			require.True(t, r.States[0].Allowed, "the next window")
		}
	}
}

// runRealTimeStepBack: a clock that steps back by more than a window,
// between milliseconds, makes a sliding log move what it holds to the
// stepped clock. What it keeps must count for a full window of real time
// from the step, as an admission at that instant would, not up to a
// millisecond less: no real interval shorter than the window holds more
// than the limit across the step, with one policy or several.
func runRealTimeStepBack(t *testing.T, newStore func(t *testing.T) core.Store) {
	ctx := context.Background()
	const window = 5 * time.Millisecond
	us := func(n int64) time.Time { return base.Add(time.Duration(n) * time.Microsecond) }
	for name, ps := range map[string][]core.Policy{
		"one":     validated(t, core.Per(2, window).Using(core.SlidingLog)),
		"several": validated(t, core.Per(2, window).Using(core.SlidingLog), core.PerHour(100).Named("hour")),
	} {
		t.Run(name, func(t *testing.T) {
			s := newStore(t)
			r, err := s.Take(ctx, "k", ps, 2, us(500)) // the real instant 0.5 ms
			require.NoError(t, err)
			require.True(t, r.States[0].Allowed)
			// The clock steps back 10.8 ms; no real time passes.
			r, err = s.Take(ctx, "k", ps, 1, us(-10_300))
			require.NoError(t, err)
			require.False(t, r.States[0].Allowed, "the 2 units admitted before the step still count")
			// 4.9 ms of real time after the admission and the step.
			r, err = s.Take(ctx, "k", ps, 1, us(-5_400))
			require.NoError(t, err)
			require.False(t, r.States[0].Allowed, "3 units admitted within 4.9ms of real time, window %v", window)
			require.Equal(t, ms(1), r.States[0].RetryAfter)
			// 5.4 ms after the step: a full window of real time has passed.
			r, err = s.Take(ctx, "k", ps, 1, us(-4_900))
			require.NoError(t, err)
			require.True(t, r.States[0].Allowed, "denied a full window of real time after the step")
		})
	}
}
