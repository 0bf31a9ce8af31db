package core_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/internal/clocktest"
	"github.com/ratewindow/ratewindow/internal/policytest"
)

var t0 = time.UnixMilli(1_800_000_000_000)

func newLimiter(t *testing.T, policies ...core.Policy) (*core.Limiter, *clocktest.Clock) {
	t.Helper()
	clock := clocktest.New(t0)
	l, err := core.NewLimiter(memory.New(), policies, core.WithClock(clock))
	require.NoError(t, err)
	return l, clock
}

// pointerStore is a Store implemented on a pointer, as a constructor
// returning (*T, error) hands out: a nil one, its error ignored, is a
// non-nil core.Store.
type pointerStore struct{ core.Store }

func TestNewLimiterRejectsBadConfig(t *testing.T) {
	cases := []struct {
		name     string
		store    core.Store
		policies []core.Policy
		opts     []core.Option
		want     string
	}{
		{"nil store", nil, []core.Policy{core.PerSecond(1)}, nil, "nil Store"},
		{"no policies", memory.New(), nil, nil, "no policies"},
		{"zero limit", memory.New(), []core.Policy{core.PerSecond(0)}, nil, "Limit must be positive"},
		{"negative limit", memory.New(), []core.Policy{core.PerSecond(-3)}, nil, "Limit must be positive"},
		{"tiny window", memory.New(), []core.Policy{core.Per(1, time.Microsecond)}, nil, "at least 1ms"},
		{"window of a century", memory.New(), []core.Policy{core.Per(1, 100*365*24*time.Hour)}, nil, "Window must be at most"},
		{"fractional ms", memory.New(), []core.Policy{core.Per(1, 1500*time.Microsecond)}, nil, "whole number of milliseconds"},
		{"unknown algorithm", memory.New(), []core.Policy{core.PerSecond(1).Using(core.Algorithm(9))}, nil, "unknown Algorithm"},
		{"duplicate names", memory.New(), []core.Policy{core.PerSecond(1).Named("x"), core.PerMinute(5).Named("x")}, nil, `both named "x"`},
		{"duplicate default names", memory.New(), []core.Policy{core.PerSecond(1), core.PerSecond(1)}, nil, "both named"},
		{"unnamed policies of one window", memory.New(), []core.Policy{core.PerMinute(10), core.PerMinute(100).Using(core.SlidingLog)}, nil, `both named "1m" (a policy without a Name is named after its Window); give one a Name`},
		{"a name equal to a default name", memory.New(), []core.Policy{core.PerHour(10).Named("1m"), core.PerMinute(1)}, nil, `both named "1m" (a policy without a Name`},
		{"too many", memory.New(), make([]core.Policy, core.MaxPolicies+1), nil, "at most 4"},
		{"huge limit", memory.New(), []core.Policy{core.Per(1<<40, time.Second)}, nil, "at most 4294967295"},
		{"huge product", memory.New(), []core.Policy{core.Per(1<<32-1, 24*time.Hour)}, nil, "too large"},
		{"nil clock", memory.New(), []core.Policy{core.PerSecond(1)}, []core.Option{core.WithClock(nil)}, "nil Clock"},
		{"nil store in an interface", (*pointerStore)(nil), []core.Policy{core.PerSecond(1)}, nil, "nil Store"},
		{"nil clock in an interface", memory.New(), []core.Policy{core.PerSecond(1)}, []core.Option{core.WithClock((*clocktest.Clock)(nil))}, "nil Clock"},
		// A shard's share of 16 units or less; the log can weigh 504.
		{"a sliding log the memory cap cannot hold", memory.New(memory.WithMaxKeys(16)), []core.Policy{core.PerMinute(1000).Using(core.SlidingLog)}, nil, `WithMaxKeys(16) gives each`},
		{"a store's own refusal", &checkingStore{Store: memory.New(), err: errors.New("too big")}, []core.Policy{core.PerSecond(1)}, nil, "too big"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l, err := core.NewLimiter(tc.store, tc.policies, tc.opts...)
			require.ErrorIs(t, err, core.ErrInvalidConfig)
			assert.Contains(t, err.Error(), tc.want)
			assert.Nil(t, l)
		})
	}
}

// A policy's error names the policy as the caller wrote it: by index, and
// by Name when it has one. An unnamed policy is not called after a Window
// the error rejects ("0ms" for 500µs, "1ms" for 1.5ms). The error starts
// with the index, which config turns into the file's field path.
func TestNewLimiterErrorNamesThePolicyAsGiven(t *testing.T) {
	cases := []struct {
		policies []core.Policy
		want     string
	}{
		{[]core.Policy{core.Per(10, 500*time.Microsecond)},
			"policies[0]: ratewindow: invalid configuration: Window must be at least 1ms, got 500µs"},
		{[]core.Policy{core.Per(10, 1500*time.Microsecond)},
			"policies[0]: ratewindow: invalid configuration: Window must be a whole number of milliseconds, got 1.5ms"},
		{[]core.Policy{core.PerSecond(1).Named("burst"), core.PerMinute(0).Named("steady")},
			`policies[1]: ratewindow: invalid configuration: policy "steady": Limit must be positive, got 0`},
	}
	for _, tc := range cases {
		_, err := core.NewLimiter(memory.New(), tc.policies)
		require.ErrorIs(t, err, core.ErrInvalidConfig)
		assert.Equal(t, tc.want, err.Error())
	}
}

func TestDefaultNames(t *testing.T) {
	for want, p := range map[string]core.Policy{
		"1s":     core.PerSecond(10),
		"1m":     core.PerMinute(600),
		"1h":     core.PerHour(1000),
		"2h":     core.Per(5, 2*time.Hour),
		"500ms":  core.Per(5, 500*time.Millisecond),
		"90s":    core.Per(7, 90*time.Second),
		"1500ms": core.Per(3, 1500*time.Millisecond),
	} {
		ps, err := policytest.Validate([]core.Policy{p})
		require.NoError(t, err)
		assert.Equal(t, want, ps[0].Name)
	}
}

func TestParseAlgorithm(t *testing.T) {
	for _, a := range []core.Algorithm{core.SlidingWindow, core.FixedWindow, core.SlidingLog} {
		got, err := core.ParseAlgorithm(a.String())
		require.NoError(t, err)
		assert.Equal(t, a, got)
	}
	_, err := core.ParseAlgorithm("token-bucket")
	require.ErrorIs(t, err, core.ErrInvalidConfig)
	assert.Equal(t, "Algorithm(9)", core.Algorithm(9).String())
}

func TestBadRequestsAreErrors(t *testing.T) {
	l, _ := newLimiter(t, core.PerSecond(5), core.PerMinute(3))
	ctx := context.Background()
	_, err := l.Allow(ctx, "")
	require.ErrorIs(t, err, core.ErrEmptyKey)
	_, err = l.AllowN(ctx, "k", 0)
	require.ErrorIs(t, err, core.ErrInvalidCost)
	_, err = l.AllowN(ctx, "k", -1)
	require.ErrorIs(t, err, core.ErrInvalidCost)
	_, err = l.AllowN(ctx, "k", 4)
	require.ErrorIs(t, err, core.ErrInvalidCost)
	assert.Contains(t, err.Error(), `"1m"`)
	_, err = l.Peek(ctx, "", 1)
	require.ErrorIs(t, err, core.ErrEmptyKey)
	require.ErrorIs(t, l.Reset(ctx, ""), core.ErrEmptyKey)
	// Nothing was charged by the rejected calls.
	d, err := l.Peek(ctx, "k", 3)
	require.NoError(t, err)
	assert.True(t, d.Allowed)
}

func TestResetForgets(t *testing.T) {
	l, _ := newLimiter(t, core.PerHour(1))
	ctx := context.Background()
	_, err := l.Allow(ctx, "k")
	require.NoError(t, err)
	d, err := l.Allow(ctx, "k")
	require.NoError(t, err)
	require.False(t, d.Allowed)
	require.NoError(t, l.Reset(ctx, "k"))
	d, err = l.Allow(ctx, "k")
	require.NoError(t, err)
	assert.True(t, d.Allowed)
}

func TestFakeClock(t *testing.T) {
	c := clocktest.New(t0)
	c.Advance(time.Second)
	assert.Equal(t, t0.Add(time.Second), c.Now())
	c.Set(t0)
	assert.Equal(t, t0, c.Now())
}

// Every wait a Decision reports fits in a time.Duration: a window the
// limiter accepts never yields a negative RetryAfter or ResetAfter, even
// after the clock steps back by almost a window (the longest wait, three
// windows for the sliding counter).
func TestLongWindowsReportPositiveWaits(t *testing.T) {
	const year = 365 * 24 * time.Hour
	ctx := context.Background()
	for _, window := range []time.Duration{97 * year, 150 * year, 290 * year} {
		for _, alg := range []core.Algorithm{core.FixedWindow, core.SlidingWindow, core.SlidingLog} {
			clock := clocktest.New(t0)
			l, err := core.NewLimiter(memory.New(), []core.Policy{core.Per(2, window).Using(alg)}, core.WithClock(clock))
			if err != nil {
				require.ErrorIs(t, err, core.ErrInvalidConfig)
				continue
			}
			check := func(step string, d core.Decision) {
				t.Helper()
				assert.GreaterOrEqual(t, d.ResetAfter, time.Duration(0), "%v %v %s: ResetAfter", window, alg, step)
				assert.GreaterOrEqual(t, d.RetryAfter, time.Duration(0), "%v %v %s: RetryAfter", window, alg, step)
				assert.Equal(t, d.Allowed, d.RetryAfter == 0, "%v %v %s: RetryAfter %v", window, alg, step, d.RetryAfter)
			}
			for range 3 {
				d, err := l.Allow(ctx, "k")
				require.NoError(t, err)
				check("filling", d)
			}
			clock.Set(t0.Add(-window + time.Millisecond))
			d, err := l.Allow(ctx, "k")
			require.NoError(t, err)
			check("after a step back", d)
		}
	}
}
