package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
)

// runStepBackWithinWindow: the clock of a sliding log steps back by less
// than a window (another node's clock, a little behind). The log is not
// moved: what it holds counts until each request leaves the window on the
// stepped clock, and a request admitted behind the newest one is recorded
// at that one's instant (the log stays in order), so it counts no shorter
// than the requests before it. Only a step of more than a window moves the
// log to now (see RealTimeAcrossAStepBack and ClockSteps). Every field of
// every answer is checked: a store that moved the log to now within a
// window answers RetryAfter and ResetAfter too short.
func runStepBackWithinWindow(t *testing.T, s core.Store) {
	ctx := context.Background()
	ps := policy(core.SlidingLog, 3, time.Second)
	for i, st := range []step{
		{at: 5000, cost: 1, allow: true, remain: 2, reset: 1000},
		{at: 5400, cost: 1, allow: true, remain: 1, reset: 1000},
		// 800 ms back, within a window of the newest (5400): recorded at
		// 5400, so the log leaves the window at 6400.
		{at: 4600, cost: 1, allow: true, remain: 0, reset: 1800},
		// The oldest (5000) leaves first.
		{at: 4600, cost: 1, allow: false, remain: 0, retry: 1400, reset: 1800},
		{at: 5999, cost: 1, peek: true, allow: false, remain: 0, retry: 1, reset: 401},
		{at: 6000, cost: 1, allow: true, remain: 0, reset: 1000},
		// 5400 holds two units, the one before and the one admitted at 4600.
		{at: 6000, cost: 1, allow: false, remain: 0, retry: 400, reset: 1000},
		{at: 6399, cost: 2, peek: true, allow: false, remain: 0, retry: 1, reset: 601},
		{at: 6400, cost: 2, allow: true, remain: 0, reset: 1000},
	} {
		call := s.Take
		if st.peek {
			call = s.Peek
		}
		r, err := call(ctx, "stepback", ps, st.cost, at(st.at))
		require.NoError(t, err)
		want := core.PolicyState{Allowed: st.allow, Remaining: st.remain, RetryAfter: ms(st.retry), ResetAfter: ms(st.reset)}
		require.Equal(t, want, r.States[0], "step %d (t=%d cost=%d)", i, st.at, st.cost)
	}
}

// runBackward steps the clock back behind a full key, by less than a
// window, by one and by two: the key is still denied (no quota is handed
// out again), and RetryAfter is honest on the stepped clock.
func runBackward(t *testing.T, s core.Store) {
	ctx := context.Background()
	for _, alg := range []core.Algorithm{core.FixedWindow, core.SlidingWindow, core.SlidingLog} {
		ps := policy(alg, 2, time.Second)
		for _, when := range []int64{4999, 4500, 4000, 3000} {
			key := fmt.Sprintf("back-%v-%d", alg, when)
			for _, t0 := range []int64{5000, 5001} {
				r, err := s.Take(ctx, key, ps, 1, at(t0))
				require.NoError(t, err)
				require.True(t, r.States[0].Allowed)
			}
			r, err := s.Take(ctx, key, ps, 1, at(when))
			require.NoError(t, err)
			require.False(t, r.States[0].Allowed, "%v at %d", alg, when)
			requireHonest(t, s, key, ps, 1, when, r.States[0].RetryAfter)
		}
	}
}

// runClockSteps: the clock jumps a day ahead, one request is admitted, the
// clock steps back. The key must not stay locked out until the clock
// reaches the glitch again: within about a window it admits again, and
// every RetryAfter on the way is honest. No more than the limit is handed
// out after the step.
func runClockSteps(t *testing.T, s core.Store) {
	ctx := context.Background()
	const day = int64(24 * time.Hour / time.Millisecond)
	for _, alg := range []core.Algorithm{core.FixedWindow, core.SlidingWindow, core.SlidingLog} {
		t.Run(alg.String(), func(t *testing.T) {
			ps := policy(alg, 3, time.Minute)
			key := "step-" + alg.String()
			r, err := s.Take(ctx, key, ps, 1, at(day))
			require.NoError(t, err)
			require.True(t, r.States[0].Allowed)
			now := int64(1500)
			allowed := 0
			for range 5 {
				r, err = s.Take(ctx, key, ps, 1, at(now))
				require.NoError(t, err)
				if r.States[0].Allowed {
					allowed++
				}
			}
			require.Equal(t, 2, allowed, "the request at the glitch still counts")
			retry := r.States[0].RetryAfter
			require.False(t, r.States[0].Allowed)
			require.LessOrEqual(t, retry, 2*time.Minute, "recovers within a window or two")
			requireHonest(t, s, key, ps, 1, now, retry)
		})
	}
}

// runStepBackPastOtherKeys: a key is spent, many other keys are called a
// moment later (when it still counts), and the clock steps back. Whatever
// a store does with idle keys while serving the others (a memory store
// sweeps some of its entries on each insert), the spent key's counts are
// kept: a store may forget a key's counts only once they count at no
// instant it has been given, and these still did at the latest one. (Once
// they have stopped counting at an instant the store has seen, a call
// stepped back before it may find them kept or forgotten: see core/memory.)
func runStepBackPastOtherKeys(t *testing.T, s core.Store) {
	ctx := context.Background()
	for _, alg := range []core.Algorithm{core.FixedWindow, core.SlidingWindow, core.SlidingLog} {
		ps := policy(alg, 2, time.Second)
		key := "spent-" + alg.String()
		for range 2 {
			r, err := s.Take(ctx, key, ps, 1, at(0))
			require.NoError(t, err)
			require.True(t, r.States[0].Allowed)
		}
		// The last millisecond in which a fixed window's count and a log's
		// records still count.
		for i := range 500 {
			r, err := s.Take(ctx, fmt.Sprintf("other-%v-%d", alg, i), ps, 1, at(999))
			require.NoError(t, err)
			require.True(t, r.States[0].Allowed)
		}
		r, err := s.Take(ctx, key, ps, 1, at(500))
		require.NoError(t, err)
		require.False(t, r.States[0].Allowed, "%v: the spent key's counts are kept", alg)
		requireHonest(t, s, key, ps, 1, 500, r.States[0].RetryAfter)
	}
}
