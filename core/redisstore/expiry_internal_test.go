package redisstore

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/policytest"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// The expiry a call gives a key is exact, on every script (one.lua for one
// policy, many.lua for several, batch.lua for a batch): the conformance
// suite cannot see it, so a key that lived too short would lose counts
// only in production, one too long would waste Redis's memory. With
// slack = 1 s:
//
//   - fixed window, compact form (the caller's clock in step with Redis's):
//     expires at the window's end + slack, on Redis's clock;
//   - sliding counter, compact form: a window + slack after the current
//     bucket's end;
//   - the full forms (the caller's clock behind Redis's): a window + slack
//     (two windows + slack for the sliding counter) from the write;
//   - sliding log: a window + slack from its newest member's instant, which
//     may lie ahead of the caller's now.
//
// A denial and a Peek leave the expiry as it was; a later charge moves it.
func TestExpiryExact(t *testing.T) {
	c := testredis.Standalone(t)
	const (
		w     = int64(60_000) // the window, ms
		slack = int64(1000)
	)
	for _, path := range expiryPaths {
		for _, alg := range []core.Algorithm{core.FixedWindow, core.SlidingWindow, core.SlidingLog} {
			for _, behind := range []bool{false, true} {
				name := path.name + "/" + alg.String() + map[bool]string{false: "/InStep", true: "/Behind"}[behind]
				t.Run(name, func(t *testing.T) {
					s, err := New(c, WithPrefix(testredis.Prefix(t)), WithClientTime())
					require.NoError(t, err)
					ps := validate(t, core.Per(2, time.Minute).Using(alg).Named("p"))
					key := s.keyOf("u", ps[0])
					now := time.Now().Truncate(time.Millisecond)
					if now.UnixMilli()%w > w-10 {
						// The calls below span 3 ms: keep them in one window.
						now = now.Add(-20 * time.Millisecond)
					}
					if behind {
						now = now.Add(-time.Hour)
					}
					ms := now.UnixMilli()

					// want returns the expiry the first charge at ms
					// must give, between Redis's clock before and after
					// the call.
					want := func(before, after int64) (lo, hi int64) {
						switch {
						case alg == core.SlidingLog:
							return before + w + slack, after + w + slack
						case alg == core.FixedWindow && !behind:
							end := ms - ms%w + w
							return end + slack, end + slack
						case !behind:
							end := ms - ms%w + w
							return end + w + slack, end + w + slack
						case alg == core.FixedWindow:
							return before + w + slack, after + w + slack
						default:
							return before + 2*w + slack, after + 2*w + slack
						}
					}
					before := redisMillis(t, c, false)
					st := path.take(t, s, "u", ps, 1, now, true)
					require.True(t, st.Allowed)
					after := redisMillis(t, c, true)
					lo, hi := want(before, after)
					exp := expireTime(t, c, key)
					require.GreaterOrEqual(t, exp, lo, "expiry after the first charge")
					require.LessOrEqual(t, exp, hi, "expiry after the first charge")

					// A charge later moves it: a millisecond on, after some
					// real time, for the forms relative to the write.
					time.Sleep(5 * time.Millisecond)
					ms++
					now = now.Add(time.Millisecond)
					before = redisMillis(t, c, false)
					st = path.take(t, s, "u", ps, 1, now, true)
					require.True(t, st.Allowed)
					after = redisMillis(t, c, true)
					lo, hi = want(before, after)
					exp = expireTime(t, c, key)
					require.GreaterOrEqual(t, exp, lo, "expiry after a second charge")
					require.LessOrEqual(t, exp, hi, "expiry after a second charge")

					// A denial and a Peek, after some real time, leave it.
					time.Sleep(5 * time.Millisecond)
					st = path.take(t, s, "u", ps, 1, now.Add(time.Millisecond), true)
					require.False(t, st.Allowed)
					path.take(t, s, "u", ps, 1, now.Add(2*time.Millisecond), false)
					require.Equal(t, exp, expireTime(t, c, key), "expiry after a denial and a Peek")
				})
			}
		}
	}
}

// A sliding log whose newest member lies ahead of the caller's clock (the
// clock stepped back, within a window) expires a window + slack after that
// member, not after now. One stepped back by more than a window is rebased
// to now even on a denial, and then expires a window + slack after now.
func TestExpirySlidingLogAhead(t *testing.T) {
	c := testredis.Standalone(t)
	const (
		w     = int64(60_000)
		slack = int64(1000)
	)
	for _, path := range expiryPaths {
		t.Run(path.name, func(t *testing.T) {
			s, err := New(c, WithPrefix(testredis.Prefix(t)), WithClientTime())
			require.NoError(t, err)
			ps := validate(t, core.Per(2, time.Minute).Using(core.SlidingLog).Named("p"))
			key := s.keyOf("u", ps[0])
			now := time.Now().Truncate(time.Millisecond)

			require.True(t, path.take(t, s, "u", ps, 1, now.Add(3*time.Minute), true).Allowed)
			// 30 s behind the newest member: the new one goes at its
			// instant, 30 s ahead of now.
			before := redisMillis(t, c, false)
			require.True(t, path.take(t, s, "u", ps, 1, now.Add(150*time.Second), true).Allowed)
			after := redisMillis(t, c, true)
			exp := expireTime(t, c, key)
			require.GreaterOrEqual(t, exp, before+30_000+w+slack, "a window + slack after the newest member")
			require.LessOrEqual(t, exp, after+30_000+w+slack, "a window + slack after the newest member")

			// Three minutes back: rebased to now, both units kept, denied.
			before = redisMillis(t, c, false)
			require.False(t, path.take(t, s, "u", ps, 1, now, true).Allowed)
			after = redisMillis(t, c, true)
			exp = expireTime(t, c, key)
			require.GreaterOrEqual(t, exp, before+w+slack, "a rebased log: a window + slack after now")
			require.LessOrEqual(t, exp, after+w+slack, "a rebased log: a window + slack after now")
		})
	}
}

// expiryPaths are the three scripts, each run for a call of one policy:
// one.lua directly, many.lua with a second policy (an hour's fixed window
// on a key of its own), batch.lua behind another request in the same
// batch.
var expiryPaths = []struct {
	name string
	take func(t *testing.T, s *Store, key string, ps []core.Policy, cost int64, now time.Time, charge bool) core.PolicyState
}{
	{"one", func(t *testing.T, s *Store, key string, ps []core.Policy, cost int64, now time.Time, charge bool) core.PolicyState {
		r, err := s.run(context.Background(), "take", key, ps, cost, now, charge)
		require.NoError(t, err)
		return r.States[0]
	}},
	{"many", func(t *testing.T, s *Store, key string, ps []core.Policy, cost int64, now time.Time, charge bool) core.PolicyState {
		two := validate(t, ps[0], core.PerHour(1000).Using(core.FixedWindow).Named("spare"))
		r, err := s.run(context.Background(), "take", key, two, cost, now, charge)
		require.NoError(t, err)
		return r.States[0]
	}},
	{"batch", func(t *testing.T, s *Store, key string, ps []core.Policy, cost int64, now time.Time, charge bool) core.PolicyState {
		spare := validate(t, core.PerHour(1000).Using(core.FixedWindow).Named("spare"), core.PerHour(1000).Named("spare2"))
		first := s.newRequest(key, spare, 1, micros(now), true)
		r := s.newRequest(key, ps, cost, micros(now), charge)
		first.n, r.n = len(spare), len(ps)
		first.ctx, r.ctx = context.Background(), context.Background()
		first.done, r.done = make(chan struct{}), make(chan struct{})
		s.sendScript([]*request{first, r})
		require.NoError(t, first.err)
		require.NoError(t, r.err)
		var res core.Result
		require.NoError(t, decode(&res, r.reply, len(ps)))
		return res.States[0]
	}},
}

func validate(t *testing.T, ps ...core.Policy) []core.Policy {
	t.Helper()
	out, err := policytest.Validate(ps)
	require.NoError(t, err)
	return out
}

// keyOf is the Redis key of key's state under p.
func (s *Store) keyOf(key string, p core.Policy) string {
	var k [1]string
	s.fillKeys(k[:], key, []core.Policy{p})
	return k[0]
}

// redisMillis reads Redis's clock, in Unix ms rounded down (or up).
func redisMillis(t *testing.T, c redis.UniversalClient, up bool) int64 {
	t.Helper()
	now, err := c.Time(context.Background()).Result()
	require.NoError(t, err)
	ms := now.UnixMilli()
	if up && now.Nanosecond()%int(time.Millisecond) != 0 {
		ms++
	}
	return ms
}

// expireTime is key's expiry, in Unix ms; it fails the test when key is
// missing or never expires.
func expireTime(t *testing.T, c redis.UniversalClient, key string) int64 {
	t.Helper()
	e, err := c.PExpireTime(context.Background(), key).Result()
	require.NoError(t, err)
	require.Positive(t, e, "key %s: -2 missing, -1 no expiry", key)
	return e.Milliseconds()
}
