package storetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
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

func policy(alg core.Algorithm, limit int64, window time.Duration) []core.Policy {
	ps, err := policytest.Validate([]core.Policy{core.Per(limit, window).Using(alg)})
	if err != nil {
		panic(err)
	}
	return ps
}

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

func runIsolation(t *testing.T, s core.Store) {
	ctx := context.Background()
	for _, alg := range []core.Algorithm{core.FixedWindow, core.SlidingWindow, core.SlidingLog} {
		ps := policy(alg, 2, time.Minute)
		keys := []string{"a-" + alg.String(), "b-" + alg.String(), "a-" + alg.String() + " ", "A-" + alg.String()}
		for _, k := range keys {
			for i, want := range []bool{true, true, false} {
				r, err := s.Take(ctx, k, ps, 1, at(0))
				require.NoError(t, err)
				require.Equal(t, want, r.States[0].Allowed, "key %q request %d", k, i)
			}
		}
		// Same key, another policy: separate counts.
		other := policy(alg, 2, 2*time.Minute)
		r, err := s.Take(ctx, keys[0], other, 2, at(0))
		require.NoError(t, err)
		require.True(t, r.States[0].Allowed)
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

// requireHonest checks that a request of cost for key, denied at now with
// retry, is still denied a millisecond sooner and allowed at now + retry.
// It charges key.
func requireHonest(t *testing.T, s core.Store, key string, ps []core.Policy, cost, now int64, retry time.Duration) {
	t.Helper()
	ctx := context.Background()
	wait := retry.Milliseconds()
	require.Positive(t, wait)
	// The usual wait (at most two windows) plus a clock step of at most
	// a window.
	require.LessOrEqual(t, wait, 3*ps[0].Window.Milliseconds())
	if wait > 1 {
		p, err := s.Peek(ctx, key, ps, cost, at(now+wait-1))
		require.NoError(t, err)
		require.False(t, p.States[0].Allowed, "allowed 1ms before RetryAfter=%dms", wait)
	}
	p, err := s.Take(ctx, key, ps, cost, at(now+wait))
	require.NoError(t, err)
	require.True(t, p.States[0].Allowed, "denied at RetryAfter=%dms", wait)
}

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

// runHonest checks, for many states, that a denied request retried exactly
// RetryAfter later is allowed and one retried a millisecond sooner is not.
func runHonest(t *testing.T, newStore func(t *testing.T) core.Store) {
	rng := rand.New(rand.NewPCG(7, 11))
	for _, alg := range []core.Algorithm{core.FixedWindow, core.SlidingWindow, core.SlidingLog} {
		t.Run(alg.String(), func(t *testing.T) {
			s := newStore(t)
			ps := policy(alg, 7, 700*time.Millisecond)
			now := int64(0)
			for trial := 0; trial < 40; trial++ {
				key := fmt.Sprintf("honest-%d", trial)
				r, cost := fillUntilDenied(t, s, rng, key, ps, &now, 120)
				wait := r.States[0].RetryAfter.Milliseconds()
				require.LessOrEqual(t, wait, 2*ps[0].Window.Milliseconds(), "at most two windows without clock steps")
				requireHonest(t, s, key, ps, cost, now, r.States[0].RetryAfter)
				now += wait
			}
		})
	}
}

// fillUntilDenied takes random costs (1 to 3) on key at instants moving
// *now forward by up to maxStep ms, until some policy denies, and returns
// that denial and its cost; *now is left at its instant.
func fillUntilDenied(t *testing.T, s core.Store, rng *rand.Rand, key string, ps []core.Policy, now *int64, maxStep int64) (core.Result, int64) {
	t.Helper()
	for {
		*now += rng.Int64N(maxStep)
		cost := 1 + rng.Int64N(3)
		r, err := s.Take(context.Background(), key, ps, cost, at(*now))
		require.NoError(t, err)
		for i := range ps {
			if !r.States[i].Allowed {
				return r, cost
			}
		}
	}
}

// runOracle replays random sequences against the store and the oracle and
// requires identical results.
func runOracle(t *testing.T, newStore func(t *testing.T) core.Store) {
	mixes := map[string][]core.Policy{
		"fixed":   {core.Per(5, 300*time.Millisecond).Using(core.FixedWindow)},
		"sliding": {core.Per(9, 500*time.Millisecond)},
		"log":     {core.Per(6, 400*time.Millisecond).Using(core.SlidingLog)},
		"mixed": {
			core.Per(4, 200*time.Millisecond).Named("short").Using(core.SlidingLog),
			core.Per(10, time.Second).Named("medium"),
			core.Per(15, 1500*time.Millisecond).Named("long").Using(core.FixedWindow),
		},
	}
	ctx := context.Background()
	for name, raw := range mixes {
		t.Run(name, func(t *testing.T) {
			ps, err := policytest.Validate(raw)
			require.NoError(t, err)
			s, o := newStore(t), oracle.New()
			rng := rand.New(rand.NewPCG(uint64(len(name)), 42))
			now := int64(0)
			minLimit := ps[0].Limit
			for _, p := range ps {
				minLimit = min(minLimit, p.Limit)
			}
			for i := 0; i < 400; i++ {
				now += rng.Int64N(90)
				key := fmt.Sprintf("k%d", rng.IntN(3))
				cost := 1 + rng.Int64N(min(3, minLimit))
				switch rng.IntN(10) {
				case 0:
					got, err := s.Peek(ctx, key, ps, cost, at(now))
					require.NoError(t, err)
					require.Equal(t, used(o.Take(key, ps, cost, now, false), ps), used(got, ps), "step %d: Peek(%s, cost %d) at %d", i, key, cost, now)
				case 1:
					if rng.IntN(4) == 0 {
						require.NoError(t, s.Reset(ctx, key, ps))
						o.Reset(key, ps)
					}
				default:
					got, err := s.Take(ctx, key, ps, cost, at(now))
					require.NoError(t, err)
					require.Equal(t, used(o.Take(key, ps, cost, now, true), ps), used(got, ps), "step %d: Take(%s, cost %d) at %d", i, key, cost, now)
				}
			}
		})
	}
}

// runConcurrent: goroutines racing for one key are admitted exactly the
// limit, at one instant and again at each later window, where the first
// call finds the previous window's counts to move on from, while another
// peeks at the key all along; the denied ones are charged to no policy.
// With one policy and with two: a store may serve one policy on a path of
// its own. In the last round the calls move on a millisecond at a time.
func runConcurrent(t *testing.T, newStore func(t *testing.T) core.Store) {
	for _, alg := range []core.Algorithm{core.FixedWindow, core.SlidingWindow, core.SlidingLog} {
		for _, several := range []bool{false, true} {
			name := alg.String() + "/one-policy"
			raw := []core.Policy{core.PerMinute(50).Using(alg)}
			if several {
				name = alg.String() + "/two-policies"
				raw = append(raw, core.PerHour(1000).Named("hourly").Using(core.FixedWindow))
			}
			t.Run(name, func(t *testing.T) {
				ps, err := policytest.Validate(raw)
				require.NoError(t, err)
				runConcurrentRounds(t, newStore(t), ps)
			})
		}
	}
}

// runConcurrentRounds races goroutines for one key under ps (a policy of
// 50 a minute, perhaps an hourly one of 1000) in rounds two minutes apart.
func runConcurrentRounds(t *testing.T, s core.Store, ps []core.Policy) {
	const goroutines, each, rounds = 8, 25, 5
	var now int64
	for round := int64(0); round < rounds; round++ {
		// Two windows on: the sliding counter's previous bucket is out
		// of its window too.
		now = 1000 + round*2*time.Minute.Milliseconds()
		// The last round's calls move on a millisecond each, all within
		// the window.
		spread := int64(0)
		if round == rounds-1 {
			spread = 1
		}
		var allowed atomic.Int64
		var wg sync.WaitGroup
		errs := make(chan error, goroutines)
		for g := 0; g < goroutines; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < each; i++ {
					r, err := s.Take(context.Background(), "hot", ps, 1, at(now+spread*int64(i)))
					if err != nil {
						errs <- err
						return
					}
					all := true
					for j := range ps {
						all = all && r.States[j].Allowed
					}
					if all {
						allowed.Add(1)
					}
				}
			}()
		}
		// A caller peeking all along changes nothing.
		done, peeked := make(chan struct{}), make(chan error, 1)
		go func() {
			for {
				select {
				case <-done:
					peeked <- nil
					return
				default:
				}
				if _, err := s.Peek(context.Background(), "hot", ps, 1, at(now)); err != nil {
					peeked <- err
					return
				}
			}
		}()
		wg.Wait()
		close(done)
		require.NoError(t, <-peeked)
		close(errs)
		for err := range errs {
			require.NoError(t, err)
		}
		require.Equal(t, int64(50), allowed.Load(), "round %d", round)
	}
	if len(ps) > 1 {
		r, err := s.Peek(context.Background(), "hot", ps, 1, at(now))
		require.NoError(t, err)
		require.Equal(t, int64(1000-50*rounds), r.States[1].Remaining, "hourly charged for denied requests")
	}
}
