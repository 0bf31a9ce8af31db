package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/internal/oracle"
	"github.com/ratewindow/ratewindow/internal/policytest"
)

// base is an instant aligned to every window of an hour or less the suite
// uses. (LongWindows finds the start of a week itself, and does not rely
// on alignment to ten years.)
var base = oracle.Base

func at(ms int64) time.Time { return oracle.At(ms) }

func ms(n int64) time.Duration { return time.Duration(n) * time.Millisecond }

// used returns the states of r that belong to policies: a store may leave
// anything in the rest (see core.Result).
func used(r core.Result, policies []core.Policy) []core.PolicyState {
	return r.States[:min(len(policies), core.MaxPolicies)]
}

// Run runs the whole conformance suite against stores made by newStore.
func Run(t *testing.T, newStore func(t *testing.T) core.Store) {
	t.Run("Scripted", func(t *testing.T) { runScripted(t, newStore) })
	t.Run("AllOrNothing", func(t *testing.T) { runAllOrNothing(t, newStore(t)) })
	t.Run("PeekDoesNotCharge", func(t *testing.T) { runPeek(t, newStore(t)) })
	t.Run("PeekAhead", func(t *testing.T) { runPeekAhead(t, newStore(t)) })
	t.Run("Reset", func(t *testing.T) { runReset(t, newStore(t)) })
	t.Run("KeyIsolation", func(t *testing.T) { runIsolation(t, newStore(t)) })
	t.Run("KeyIsolationTricky", func(t *testing.T) { runIsolationTricky(t, newStore(t)) })
	t.Run("ManyKeys", func(t *testing.T) { runManyKeys(t, newStore(t)) })
	t.Run("PolicyIdentity", func(t *testing.T) { runPolicyIdentity(t, newStore(t)) })
	t.Run("TimeBackward", func(t *testing.T) { runBackward(t, newStore(t)) })
	t.Run("ClockSteps", func(t *testing.T) { runClockSteps(t, newStore(t)) })
	t.Run("StepBackWithinAWindow", func(t *testing.T) { runStepBackWithinWindow(t, newStore(t)) })
	t.Run("StepBackPastOtherKeys", func(t *testing.T) { runStepBackPastOtherKeys(t, newStore(t)) })
	t.Run("RealTime", func(t *testing.T) { runRealTime(t, newStore(t)) })
	t.Run("LongLog", func(t *testing.T) { runLongLog(t, newStore(t)) })
	t.Run("RealTimeAcrossAStepBack", func(t *testing.T) { runRealTimeStepBack(t, newStore) })
	t.Run("HonestRetryAfter", func(t *testing.T) { runHonest(t, newStore) })
	t.Run("MatchesOracle", func(t *testing.T) { runOracle(t, newStore) })
	t.Run("LargeValues", func(t *testing.T) { runLargeValues(t, newStore) })
	t.Run("LimitChanges", func(t *testing.T) { runLimitChanges(t, newStore) })
	t.Run("LongWindows", func(t *testing.T) { runLongWindows(t, newStore) })
	t.Run("HonestRetryAfterSeveralPolicies", func(t *testing.T) { runHonestSeveral(t, newStore) })
	t.Run("Concurrent", func(t *testing.T) { runConcurrent(t, newStore) })
	t.Run("BadCalls", func(t *testing.T) { runBadCalls(t, newStore(t)) })
}

// step is one call in a scripted sequence and what it must return for the
// first policy.
type step struct {
	at     int64 // ms after base
	cost   int64
	peek   bool
	allow  bool
	remain int64
	retry  int64 // ms
	reset  int64 // ms
}

// policy returns one policy of limit per window on alg, as a Limiter
// holds it.
func policy(alg core.Algorithm, limit int64, window time.Duration) []core.Policy {
	ps, err := policytest.Validate([]core.Policy{core.Per(limit, window).Using(alg)})
	if err != nil {
		panic(err)
	}
	return ps
}

// validated returns ps as a Limiter holds them (see policytest.Validate).
func validated(t *testing.T, ps ...core.Policy) []core.Policy {
	t.Helper()
	out, err := policytest.Validate(ps)
	require.NoError(t, err)
	return out
}

// runScripted checks hand-computed sequences of each algorithm, every
// field of the first policy's state at every step.
func runScripted(t *testing.T, newStore func(t *testing.T) core.Store) {
	cases := []struct {
		name     string
		policies []core.Policy
		steps    []step
	}{
		{"FixedWindow", policy(core.FixedWindow, 3, time.Second), []step{
			{at: 900, cost: 1, allow: true, remain: 2, reset: 100},
			{at: 900, cost: 1, allow: true, remain: 1, reset: 100},
			{at: 950, cost: 1, allow: true, remain: 0, reset: 50},
			{at: 950, cost: 1, allow: false, remain: 0, retry: 50, reset: 50},
			{at: 999, cost: 1, allow: false, remain: 0, retry: 1, reset: 1},
			{at: 1000, cost: 2, allow: true, remain: 1, reset: 1000},
			{at: 1500, cost: 2, allow: false, remain: 1, retry: 500, reset: 500},
			{at: 1500, cost: 1, peek: true, allow: true, remain: 1, reset: 500},
		}},
		{"SlidingWindow", policy(core.SlidingWindow, 10, time.Second), []step{
			{at: 100, cost: 8, allow: true, remain: 2, reset: 1900},
			// elapsed 250 in the next bucket: estimate 8×0.75 = 6.
			{at: 1250, cost: 4, allow: true, remain: 0, reset: 1750},
			// 8×(750−d)+4000+1000 ≤ 10000 first holds at d = 125.
			{at: 1250, cost: 1, allow: false, remain: 0, retry: 125, reset: 1750},
			{at: 1374, cost: 1, allow: false, remain: 0, retry: 1, reset: 1626},
			{at: 1375, cost: 1, allow: true, remain: 0, reset: 1625},
			// curr = 5: cost 6 needs the next bucket, where 5·(1000−e) ≤ 4000 at e = 200.
			{at: 1400, cost: 6, allow: false, remain: 0, retry: 800, reset: 1600},
			{at: 2200, cost: 6, allow: true, remain: 0, reset: 1800},
			{at: 4000, cost: 1, peek: true, allow: true, remain: 10, reset: 0},
		}},
		{"SlidingLog", policy(core.SlidingLog, 3, time.Second), []step{
			{at: 0, cost: 1, allow: true, remain: 2, reset: 1000},
			{at: 100, cost: 1, allow: true, remain: 1, reset: 1000},
			{at: 200, cost: 1, allow: true, remain: 0, reset: 1000},
			{at: 300, cost: 1, allow: false, remain: 0, retry: 700, reset: 900},
			{at: 999, cost: 1, allow: false, remain: 0, retry: 1, reset: 201},
			{at: 1000, cost: 1, allow: true, remain: 0, reset: 1000},
			// units at 100, 200, 1000: cost 2 needs the 2nd oldest (200) gone.
			{at: 1000, cost: 2, allow: false, remain: 0, retry: 200, reset: 1000},
			{at: 1200, cost: 2, allow: true, remain: 0, reset: 1000},
			{at: 5000, cost: 3, peek: true, allow: true, remain: 3, reset: 0},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newStore(t)
			ctx := context.Background()
			for i, st := range tc.steps {
				call := s.Take
				if st.peek {
					call = s.Peek
				}
				r, err := call(ctx, "scripted", tc.policies, st.cost, at(st.at))
				require.NoError(t, err)
				want := core.PolicyState{Allowed: st.allow, Remaining: st.remain, RetryAfter: ms(st.retry), ResetAfter: ms(st.reset)}
				require.Equal(t, want, r.States[0], "step %d (t=%d cost=%d)", i, st.at, st.cost)
			}
		})
	}
}

// runAllOrNothing: a request denied by one policy is charged to none.
func runAllOrNothing(t *testing.T, s core.Store) {
	ctx := context.Background()
	ps, err := policytest.Validate([]core.Policy{
		core.PerSecond(3).Named("burst").Using(core.FixedWindow),
		core.PerMinute(5).Named("steady").Using(core.SlidingLog),
		core.PerMinute(100).Named("bulk"),
	})
	require.NoError(t, err)
	for i := 0; i < 3; i++ {
		r, err := s.Take(ctx, "k", ps, 1, at(0))
		require.NoError(t, err)
		require.True(t, r.States[0].Allowed && r.States[1].Allowed && r.States[2].Allowed)
	}
	// burst is exhausted: the others must not be charged for the denial.
	for i := 0; i < 5; i++ {
		r, err := s.Take(ctx, "k", ps, 1, at(500))
		require.NoError(t, err)
		require.False(t, r.States[0].Allowed)
		require.True(t, r.States[1].Allowed)
		require.Equal(t, int64(2), r.States[1].Remaining, "steady charged for a denied request")
		require.Equal(t, int64(97), r.States[2].Remaining, "bulk charged for a denied request")
	}
	// next second: two more fit steady, the third is denied by steady alone.
	for i, want := range []bool{true, true, false} {
		r, err := s.Take(ctx, "k", ps, 1, at(1000))
		require.NoError(t, err)
		require.Equal(t, want, r.States[0].Allowed && r.States[1].Allowed, "request %d", i)
	}
	r, err := s.Peek(ctx, "k", ps, 1, at(1000))
	require.NoError(t, err)
	require.Equal(t, int64(1), r.States[0].Remaining, "burst charged for a request steady denied")
	require.Equal(t, int64(95), r.States[2].Remaining)
}

// runPeek: Peeks charge nothing, and one after the limit is spent denies
// with a wait.
func runPeek(t *testing.T, s core.Store) {
	ctx := context.Background()
	for _, alg := range []core.Algorithm{core.FixedWindow, core.SlidingWindow, core.SlidingLog} {
		ps := policy(alg, 2, time.Second)
		key := "peek-" + alg.String()
		for i := 0; i < 5; i++ {
			r, err := s.Peek(ctx, key, ps, 2, at(10))
			require.NoError(t, err)
			require.Equal(t, core.PolicyState{Allowed: true, Remaining: 2}, r.States[0], alg)
		}
		r, err := s.Take(ctx, key, ps, 2, at(10))
		require.NoError(t, err)
		require.True(t, r.States[0].Allowed)
		r, err = s.Peek(ctx, key, ps, 1, at(20))
		require.NoError(t, err)
		require.False(t, r.States[0].Allowed, alg)
		require.Positive(t, r.States[0].RetryAfter, alg)
	}
}

// runReset: Reset forgets a key's counts under the policies it is given,
// and only those.
func runReset(t *testing.T, s core.Store) {
	ctx := context.Background()
	ps, err := policytest.Validate([]core.Policy{
		core.PerSecond(1).Using(core.FixedWindow),
		core.PerMinute(1).Using(core.SlidingLog),
		core.PerHour(1),
	})
	require.NoError(t, err)
	r, err := s.Take(ctx, "r", ps, 1, at(0))
	require.NoError(t, err)
	require.True(t, r.States[0].Allowed)
	r, err = s.Take(ctx, "r", ps, 1, at(1))
	require.NoError(t, err)
	for i := range ps {
		require.False(t, r.States[i].Allowed, ps[i].Name)
	}
	require.NoError(t, s.Reset(ctx, "r", ps))
	r, err = s.Take(ctx, "r", ps, 1, at(2))
	require.NoError(t, err)
	for i := range ps {
		require.True(t, r.States[i].Allowed, ps[i].Name)
	}
	// Reset forgets the given policies only: the key's counts under the
	// others stay.
	require.NoError(t, s.Reset(ctx, "r", ps[1:2]))
	r, err = s.Peek(ctx, "r", ps, 1, at(3))
	require.NoError(t, err)
	for i := range ps {
		require.Equal(t, i == 1, r.States[i].Allowed, "%s after a Reset of %s alone", ps[i].Name, ps[1].Name)
	}
	require.NoError(t, s.Reset(ctx, "never-seen", ps))
}
