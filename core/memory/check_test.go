package memory_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/internal/clocktest"
)

// Under WithMaxKeys, a limiter is refused when one key's entries could
// weigh more than a shard's share of the cap: a sliding log 4 units plus
// one per two records it can hold (min(Limit, Window/1ms + 1)), a counter
// 1, all of a key's policies together.
func TestMaxKeysRefusesPoliciesAShardCannotHold(t *testing.T) {
	log := func(limit int64, window time.Duration) core.Policy {
		return core.Per(limit, window).Using(core.SlidingLog).Named("log")
	}
	counter := core.PerSecond(1000).Named("counter")
	cases := []struct {
		name     string
		opts     []memory.Option
		policies []core.Policy
		want     string // "" when accepted, else a part of the error
	}{
		{"no cap", nil, []core.Policy{log(1_000_000, time.Hour)}, ""},
		{"a log of 192 records weighs 100", []memory.Option{memory.WithShards(1), memory.WithMaxKeys(100)}, []core.Policy{log(192, time.Minute)}, ""},
		{"a log of 193 records weighs 100", []memory.Option{memory.WithShards(1), memory.WithMaxKeys(100)}, []core.Policy{log(193, time.Minute)}, ""},
		{"a log of 194 records weighs 101", []memory.Option{memory.WithShards(1), memory.WithMaxKeys(100)}, []core.Policy{log(194, time.Minute)},
			`WithMaxKeys(100) gives each of the store's 1 shards 100 units, but one key's entries, which share a shard, can weigh 101 units under these policies (policy "log" (194 per 1m0s, sliding-log) up to 101; `},
		{"a window of 191ms holds 192 records", []memory.Option{memory.WithShards(1), memory.WithMaxKeys(100)}, []core.Policy{log(1000, 191*time.Millisecond)}, ""},
		{"a window of 193ms holds 194 records", []memory.Option{memory.WithShards(1), memory.WithMaxKeys(100)}, []core.Policy{log(1000, 193*time.Millisecond)}, "up to 101"},
		{"the share is the cap over the shards", []memory.Option{memory.WithShards(4), memory.WithMaxKeys(400)}, []core.Policy{log(194, time.Minute)},
			"WithMaxKeys(400) gives each of the store's 4 shards 100 units"},
		{"the error names the smallest cap", []memory.Option{memory.WithShards(4), memory.WithMaxKeys(400)}, []core.Policy{log(194, time.Minute)},
			"use WithMaxKeys(404) or more"},
		{"a key's policies weigh together", []memory.Option{memory.WithShards(1), memory.WithMaxKeys(100)}, []core.Policy{log(192, time.Minute), counter},
			`can weigh 101 units under these policies (policy "log" (192 per 1m0s, sliding-log) up to 100, policy "counter" (1000 per 1s, sliding-window) up to 1;`},
		{"counters weigh one each", []memory.Option{memory.WithShards(1), memory.WithMaxKeys(3)},
			[]core.Policy{counter, counter.Named("b"), counter.Named("c"), counter.Named("d").Using(core.FixedWindow)}, "can weigh 4 units"},
		// The audit's case: a shard's share of 100 units, a log of 400
		// requests, which evicted every other key of its shard and then was
		// evicted itself.
		{"the audit's log", []memory.Option{memory.WithShards(1), memory.WithMaxKeys(100)}, []core.Policy{log(400, time.Minute)}, "up to 204"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := memory.New(tc.opts...)
			l, err := core.NewLimiter(s, tc.policies)
			if tc.want == "" {
				require.NoError(t, err)
				require.NotNil(t, l)
				return
			}
			require.ErrorIs(t, err, core.ErrInvalidConfig)
			assert.ErrorContains(t, err, tc.want)
			assert.Nil(t, l)
			// The same store accepts counters on their own: the store is
			// fine, the policies are not.
			_, err = core.NewLimiter(s, []core.Policy{core.PerSecond(10)})
			require.NoError(t, err)
		})
	}
}

// A sliding log that fits its shard's share is enforced exactly under
// WithMaxKeys, and the other keys of its shard keep their counts: no key
// is evicted while the shard holds what it is allowed to.
func TestMaxKeysKeepsAFittingLogExact(t *testing.T) {
	// One shard of 100 units. The log of "heavy" holds up to 60 records:
	// 34 units. Each other client's log holds one record in a buffer of
	// four: 6 units, 60 for ten.
	s := memory.New(memory.WithShards(1), memory.WithMaxKeys(100))
	clock := clocktest.New(t0)
	api := core.PerMinute(60).Using(core.SlidingLog).Named("api")
	l, err := core.NewLimiter(s, []core.Policy{api}, core.WithClock(clock))
	require.NoError(t, err)
	ctx := context.Background()
	allow := func(key string) bool {
		t.Helper()
		d, err := l.Allow(ctx, key)
		require.NoError(t, err)
		return d.Allowed
	}
	for i := range 10 {
		require.True(t, allow("client-"+strconv.Itoa(i)))
	}

	// 200 requests of heavy, 100ms apart: the first 60 pass, no more.
	admitted := 0
	for i := range 200 {
		if allow("heavy") {
			admitted++
			assert.Less(t, i, 60, "request %d admitted over the limit", i)
		}
		if i == 100 {
			for j := range 10 {
				d, err := l.Peek(ctx, "client-"+strconv.Itoa(j), 1)
				require.NoError(t, err)
				require.Equal(t, int64(59), d.Remaining, "client-%d lost its count to heavy's log", j)
			}
		}
		clock.Advance(100 * time.Millisecond)
	}
	assert.Equal(t, 60, admitted, "the log admits exactly its limit in a minute")
	used, _, _, _ := memory.WeightsForTest(s)
	assert.LessOrEqual(t, used, 100, "the shard stays within its share")

	// Just before the first admission leaves the window, heavy is still
	// full and the others still count theirs; then the first one leaves.
	clock.Set(t0.Add(time.Minute - time.Millisecond))
	for j := range 10 {
		d, err := l.Peek(ctx, "client-"+strconv.Itoa(j), 1)
		require.NoError(t, err)
		assert.Equal(t, int64(59), d.Remaining, "client-%d lost its count", j)
	}
	assert.False(t, allow("heavy"), "heavy's count was forgotten")
	clock.Set(t0.Add(time.Minute))
	assert.True(t, allow("heavy"))
	assert.False(t, allow("heavy"))
}

// The weights the check assumes are those the store counts: a log driven
// to its largest weighs 4 + min(Limit, Window/1ms + 1)/2 units.
func TestMaxKeysCheckWeighsAsTheStore(t *testing.T) {
	for _, tc := range []struct {
		limit  int64
		window time.Duration
		want   int
	}{
		{1, time.Minute, 4},
		{3, time.Second, 5},
		{5, time.Second, 6},
		{192, time.Minute, 100},
		{1000, 191 * time.Millisecond, 100},
	} {
		p := core.Per(tc.limit, tc.window).Using(core.SlidingLog)
		// The check accepts it in a shard of exactly its weight, and
		// refuses it in one a unit smaller.
		_, err := core.NewLimiter(memory.New(memory.WithShards(1), memory.WithMaxKeys(tc.want)), []core.Policy{p})
		require.NoError(t, err, "%v", p)
		_, err = core.NewLimiter(memory.New(memory.WithShards(1), memory.WithMaxKeys(tc.want-1)), []core.Policy{p})
		require.ErrorIs(t, err, core.ErrInvalidConfig, "%v", p)

		s := memory.New(memory.WithShards(1))
		ps := policies(t, p)
		ctx := context.Background()
		now := t0.Add(half)
		for range 3 * tc.limit {
			_, err := s.Take(ctx, "k", ps, 1, now)
			require.NoError(t, err)
			now = now.Add(time.Millisecond)
		}
		used, _, _, _ := memory.WeightsForTest(s)
		assert.Equal(t, tc.want, used, "%v", p)
	}
}
