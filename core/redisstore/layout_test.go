package redisstore_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// unpack decodes a value the script stored, with the script's own
// MessagePack library.
func unpack(t *testing.T, c redis.UniversalClient, v string) []int64 {
	t.Helper()
	got, err := c.Eval(context.Background(), "return {cmsgpack.unpack(ARGV[1])}", nil, v).Int64Slice()
	require.NoError(t, err)
	return got
}

// The keys and stored values are what the package doc says: the policy
// part of a key is the algorithm's letter, the window in its largest whole
// unit and the code of the policy's name. A caller whose clock agrees with
// Redis's writes the compact forms: the fixed window's count and the
// sliding counter's prev × 2^26 + curr as plain integers, the window in the
// key's expiry. One log member per request (or per millisecond), holding
// the running sum and the request's units.
func TestStoredLayout(t *testing.T) {
	c := testredis.Standalone(t)
	s, prefix := store(t, c)
	ctx := context.Background()
	ps := policies(t,
		core.PerMinute(50).Named("fixed").Using(core.FixedWindow),
		core.PerMinute(50).Named("sliding"),
		core.PerMinute(50).Named("log").Using(core.SlidingLog),
	)
	// A clock ahead of Redis's by up to a day, so the keys are written in
	// compact form whatever the date.
	start := time.Now().Add(24 * time.Hour).Truncate(time.Hour)
	now := start.Add(90 * time.Second) // minute index i+1, 30 s in
	i := start.UnixMilli() / 60000
	earlier := now.Add(-45 * time.Second) // minute i, still in the log's window
	_, err := s.Take(ctx, "u", ps, 2, earlier)
	require.NoError(t, err)
	_, err = s.Take(ctx, "u", ps, 3, now)
	require.NoError(t, err)
	_, err = s.Take(ctx, "u", ps, 1, now)
	require.NoError(t, err)

	k := prefix + ":{u}:"
	const slack = 1000 // ms the key outlives its state
	assert.Equal(t, "4", c.Get(ctx, k+"f1m:eoeJpP").Val())
	assert.Equal(t, (i+2)*60000+slack, c.PExpireTime(ctx, k+"f1m:eoeJpP").Val().Milliseconds(), "the window's end")
	assert.Equal(t, fmt.Sprint(2<<26+4), c.Get(ctx, k+"s1m:CgPxMi").Val())
	assert.Equal(t, (i+3)*60000+slack, c.PExpireTime(ctx, k+"s1m:CgPxMi").Val().Milliseconds(), "the current bucket's end + a window")

	members, err := c.ZRangeWithScores(ctx, k+"l1m:e8i8Su", 0, -1).Result()
	require.NoError(t, err)
	t0, t1 := earlier.UnixMilli(), now.UnixMilli()
	// Two requests in one millisecond share its member.
	want := [][]int64{{t0, 2, 2}, {t1, 6, 4}}
	require.Len(t, members, len(want))
	for j, m := range members {
		assert.Equal(t, float64(want[j][0]), m.Score, "member %d", j)
		assert.Equal(t, want[j][1:], unpack(t, c, m.Member.(string)), "member %d", j)
	}
}

// A caller whose clock runs more than half a second behind Redis's writes
// the full forms, which keep the window's index in the value and expire
// relative to the write: integers packed with cmsgpack, short enough for
// Redis's smallest string allocation.
func TestStoredLayoutClockBehind(t *testing.T) {
	c := testredis.Standalone(t)
	s, prefix := store(t, c)
	ctx := context.Background()
	ps := policies(t,
		core.PerMinute(50).Named("fixed").Using(core.FixedWindow),
		core.PerMinute(50).Named("sliding"),
	)
	start := time.Now().Add(-24 * time.Hour).Truncate(time.Hour)
	now := start.Add(90 * time.Second)
	i := start.UnixMilli() / 60000
	_, err := s.Take(ctx, "u", ps, 2, now.Add(-45*time.Second))
	require.NoError(t, err)
	_, err = s.Take(ctx, "u", ps, 3, now)
	require.NoError(t, err)
	_, err = s.Take(ctx, "u", ps, 1, now)
	require.NoError(t, err)

	k := prefix + ":{u}:"
	assert.Equal(t, []int64{i + 1, 4}, unpack(t, c, c.Get(ctx, k+"f1m:eoeJpP").Val()))
	assert.Equal(t, []int64{i + 1, 2, 4}, unpack(t, c, c.Get(ctx, k+"s1m:CgPxMi").Val()))
	assert.LessOrEqual(t, len(c.Get(ctx, k+"s1m:CgPxMi").Val()), 12, "fits Redis's smallest string allocation")
	for name, ttl := range map[string]time.Duration{"f1m:eoeJpP": time.Minute, "s1m:CgPxMi": 2 * time.Minute} {
		got := c.PTTL(ctx, k+name).Val()
		assert.Greater(t, got, ttl, name)
		assert.LessOrEqual(t, got, ttl+time.Second, name)
	}
}

// A value the script cannot read counts as no state rather than an error:
// a string that is neither form, or an integer whose key has no expiry, or
// one more than a quarter window from any window's end.
func TestUnreadableStateStartsOver(t *testing.T) {
	c := testredis.Standalone(t)
	ctx := context.Background()
	now := soonAfter(time.Minute)
	end := now.Add(time.Minute + time.Second) // now's window's end, as a compact key's expiry
	for _, tt := range []struct {
		name  string
		value string
		ttl   time.Duration // 0: none
		at    time.Time     // the expiry, unless ttl is set
	}{
		{"not a state", "not a state", time.Minute, time.Time{}},
		{"dash", "-", time.Minute, time.Time{}},
		{"integer, no expiry", "3", 0, time.Time{}},
		{"integer, expiry off the window", "3", 0, end.Add(15*time.Second + time.Millisecond)},
		{"fraction", "1.5", 0, end},
		{"negative", "-2", 0, end},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, prefix := store(t, c)
			ps := policies(t, core.PerMinute(5).Named("fixed").Using(core.FixedWindow), core.PerMinute(5).Named("sliding"))
			for _, k := range []string{prefix + ":{u}:f1m:eoeJpP", prefix + ":{u}:s1m:CgPxMi"} {
				require.NoError(t, c.Set(ctx, k, tt.value, tt.ttl).Err())
				if !tt.at.IsZero() {
					require.NoError(t, c.PExpireAt(ctx, k, tt.at).Err())
				}
			}
			r, err := s.Take(ctx, "u", ps, 1, now)
			require.NoError(t, err)
			assert.Equal(t, core.PolicyState{Allowed: true, Remaining: 4, ResetAfter: time.Minute}, r.States[0])
			assert.True(t, r.States[1].Allowed)
			assert.EqualValues(t, 4, r.States[1].Remaining)
		})
	}
}

// A request of any weight is one member of a few bytes: the log's memory
// and the script's work do not grow with the cost.
func TestWeightedLogKeySize(t *testing.T) {
	c := testredis.Standalone(t)
	s, prefix := store(t, c)
	ctx := context.Background()
	ps := policies(t, core.Per(1_000_000, time.Hour).Named("log").Using(core.SlidingLog))
	r, err := s.Take(ctx, "heavy", ps, 1_000_000, base)
	require.NoError(t, err)
	require.True(t, r.States[0].Allowed)
	r, err = s.Take(ctx, "heavy", ps, 1, base.Add(time.Second))
	require.NoError(t, err)
	require.False(t, r.States[0].Allowed)
	assert.Equal(t, time.Hour-time.Second, r.States[0].RetryAfter)
	key := prefix + ":{heavy}:l1h:e8i8Su"
	assert.EqualValues(t, 1, c.ZCard(ctx, key).Val())
	size, err := c.MemoryUsage(ctx, key).Result()
	require.NoError(t, err)
	assert.Less(t, size, int64(512), "bytes held by the key")
}

// A window of about a year has a small index (its start ÷ window), which
// MessagePack writes as a single byte: a full-form value such as
// pack(57, 9), "9\t", must still read as the full form and not as the
// integer 9 in compact form (a charge would then INCRBY it and fail, for
// the key's whole life). Full keys are written by a caller whose clock is
// over half a second behind Redis's; the window is chosen so that this
// caller is just past a window's start, the case where the two forms'
// expiries agree.
func TestFullFormNeverReadsAsCompact(t *testing.T) {
	ctx := context.Background()
	now := time.Now().Add(-5 * time.Second)
	window := time.Duration(now.Add(-time.Minute).UnixMilli()/57) * time.Millisecond // about a year
	for name, alg := range map[string]core.Algorithm{"fixed": core.FixedWindow, "sliding": core.SlidingWindow} {
		for cname, c := range testredis.Universal(t) {
			t.Run(name+"/"+cname, func(t *testing.T) {
				s, prefix := store(t, c)
				ps := policies(t, core.Per(100, window).Using(alg))
				for i := range int64(60) {
					r, err := s.Take(ctx, "u", ps, 1, now)
					require.NoError(t, err, "take %d", i+1)
					require.Equal(t, 100-i-1, r.States[0].Remaining, "take %d", i+1)
				}
				// A value as earlier releases wrote it, index in one byte.
				k := onlyKey(t, c, prefix, "u")
				old := "return redis.call('SET', KEYS[1], cmsgpack.pack(57, 9), 'PX', 60000)"
				if alg == core.SlidingWindow {
					old = "return redis.call('SET', KEYS[1], cmsgpack.pack(57, 0, 9), 'PX', 60000)"
				}
				require.NoError(t, c.Eval(ctx, old, []string{k}).Err())
				r, err := s.Take(ctx, "u", ps, 1, now)
				require.NoError(t, err, "an earlier release's value")
				assert.EqualValues(t, 90, r.States[0].Remaining)
			})
		}
	}
}
