package core_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/internal/standin"
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

func TestDecisionNamesBindingPolicy(t *testing.T) {
	l, clock := newLimiter(t,
		core.PerSecond(3).Named("burst").Using(core.FixedWindow),
		core.PerMinute(4).Named("steady").Using(core.SlidingLog))
	ctx := context.Background()

	d, err := l.Allow(ctx, "k")
	require.NoError(t, err)
	assert.True(t, d.Allowed)
	assert.Equal(t, "burst", d.Policy().Name, "least remaining: burst 2 vs steady 3")
	assert.Equal(t, int64(2), d.Remaining)
	assert.Equal(t, int64(3), d.Limit)
	assert.Len(t, d.Policies, 2)
	assert.Equal(t, int64(3), d.States()[1].Remaining)

	for i := 0; i < 2; i++ {
		_, err = l.Allow(ctx, "k")
		require.NoError(t, err)
	}
	d, err = l.Allow(ctx, "k")
	require.NoError(t, err)
	assert.False(t, d.Allowed)
	assert.Equal(t, "burst", d.Policy().Name)
	assert.Equal(t, 0, d.Index)
	assert.Equal(t, time.Second, d.RetryAfter)

	clock.Advance(time.Second)
	_, err = l.Allow(ctx, "k")
	require.NoError(t, err)
	d, err = l.Allow(ctx, "k")
	require.NoError(t, err)
	assert.False(t, d.Allowed)
	assert.Equal(t, "steady", d.Policy().Name)
	assert.Equal(t, 1, d.Index)
	assert.Equal(t, 59*time.Second, d.RetryAfter, "the oldest unit (t0) leaves the minute at t0+60s; now is t0+1s")
	assert.True(t, d.States()[0].Allowed, "burst alone would allow")
}

func TestDecisionPicksLongestWaitAmongDenials(t *testing.T) {
	l, _ := newLimiter(t,
		core.PerSecond(1).Named("a").Using(core.FixedWindow),
		core.PerMinute(1).Named("b").Using(core.FixedWindow))
	ctx := context.Background()
	_, err := l.Allow(ctx, "k")
	require.NoError(t, err)
	d, err := l.Allow(ctx, "k")
	require.NoError(t, err)
	assert.False(t, d.Allowed)
	assert.Equal(t, "b", d.Policy().Name)
	assert.Equal(t, time.Minute, d.RetryAfter)
}

// Two policies used up by the same request: the binding one is the one
// that waits longer for more quota, so a caller told ResetAfter (or the
// RateLimit fields written from it) is not refused by the other when it
// comes back after it.
func TestDecisionPicksLongestWaitAmongTies(t *testing.T) {
	l, _ := newLimiter(t,
		core.PerSecond(1).Named("a").Using(core.FixedWindow),
		core.PerMinute(1).Named("b").Using(core.FixedWindow))
	d, err := l.Allow(context.Background(), "k")
	require.NoError(t, err)
	assert.True(t, d.Allowed)
	assert.Equal(t, int64(0), d.Remaining)
	assert.Equal(t, "b", d.Policy().Name)
	assert.Equal(t, 1, d.Index)
	assert.Equal(t, time.Minute, d.ResetAfter)
	assert.Equal(t, int64(1), d.Limit)
}

func TestSetPoliciesKeepsCounts(t *testing.T) {
	l, _ := newLimiter(t, core.PerMinute(3).Named("plan"))
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		d, err := l.Allow(ctx, "k")
		require.NoError(t, err)
		require.True(t, d.Allowed)
	}
	d, err := l.Allow(ctx, "k")
	require.NoError(t, err)
	require.False(t, d.Allowed)

	require.NoError(t, l.SetPolicies(core.PerMinute(5).Named("plan")))
	d, err = l.Allow(ctx, "k")
	require.NoError(t, err)
	assert.True(t, d.Allowed)
	assert.Equal(t, int64(1), d.Remaining, "the three earlier requests still count")

	err = l.SetPolicies(core.PerMinute(0))
	require.ErrorIs(t, err, core.ErrInvalidConfig)
	assert.Equal(t, int64(5), l.Policies()[0].Limit, "a failed SetPolicies changes nothing")
}

// checkingStore is a Store that checks policies: it records the last set it
// was given and refuses every set while err is set.
type checkingStore struct {
	core.Store
	err  error
	seen []core.Policy
}

func (c *checkingStore) CheckPolicies(ps []core.Policy) error {
	c.seen = append([]core.Policy(nil), ps...)
	return c.err
}

// A store that implements core.PolicyChecker sees the policies as Take will
// (named), and its refusal fails SetPolicies with ErrInvalidConfig, the
// running policies kept.
func TestSetPoliciesAsksTheStore(t *testing.T) {
	store := &checkingStore{Store: memory.New()}
	l, err := core.NewLimiter(store, []core.Policy{core.PerMinute(2)}, core.WithClock(clocktest.New(t0)))
	require.NoError(t, err)
	require.Len(t, store.seen, 1)
	assert.Equal(t, "1m", store.seen[0].Name, "the store checks the policies as named")

	store.err = errors.New("too big")
	err = l.SetPolicies(core.PerMinute(5))
	require.ErrorIs(t, err, core.ErrInvalidConfig)
	assert.ErrorContains(t, err, "too big")
	assert.Equal(t, int64(2), l.Policies()[0].Limit, "a refused SetPolicies changes nothing")
}

// A memory store capped by WithMaxKeys refuses a sliding log it cannot hold
// in one shard's share of the cap, and the limiter keeps its policies.
func TestSetPoliciesRefusesALogOverTheMemoryCap(t *testing.T) {
	l, err := core.NewLimiter(memory.New(memory.WithMaxKeys(16)), []core.Policy{core.PerMinute(2).Using(core.FixedWindow)},
		core.WithClock(clocktest.New(t0)))
	require.NoError(t, err)
	ctx := context.Background()
	d, err := l.Allow(ctx, "k")
	require.NoError(t, err)
	require.True(t, d.Allowed)

	err = l.SetPolicies(core.PerMinute(1000).Using(core.SlidingLog))
	require.ErrorIs(t, err, core.ErrInvalidConfig)
	assert.ErrorContains(t, err, "WithMaxKeys(16)")
	require.Len(t, l.Policies(), 1)
	assert.Equal(t, core.FixedWindow, l.Policies()[0].Algorithm, "the old policies stay in force")
	assert.Equal(t, int64(2), l.Policies()[0].Limit)
	d, err = l.Allow(ctx, "k")
	require.NoError(t, err)
	assert.True(t, d.Allowed)
	d, err = l.Allow(ctx, "k")
	require.NoError(t, err)
	assert.False(t, d.Allowed, "and so do their counts")
}

// An unnamed policy is named after its window, so changing its Limit keeps
// its counts, as it does for a named one.
func TestSetPoliciesKeepsCountsOfUnnamedPolicy(t *testing.T) {
	l, _ := newLimiter(t, core.PerMinute(3))
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		d, err := l.Allow(ctx, "k")
		require.NoError(t, err)
		require.True(t, d.Allowed)
	}
	require.NoError(t, l.SetPolicies(core.PerMinute(5)))
	d, err := l.Allow(ctx, "k")
	require.NoError(t, err)
	assert.True(t, d.Allowed)
	assert.Equal(t, int64(1), d.Remaining, "the three earlier requests still count")
	assert.Equal(t, "1m", d.Policy().Name)
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

// TestDecisionCarriesBindingState checks the fields the Limiter copies from
// the binding policy's state on one and on
// several policies, allowed and denied.
func TestDecisionCarriesBindingState(t *testing.T) {
	for _, policies := range [][]core.Policy{
		{core.PerSecond(2)},
		{core.PerSecond(2).Named("burst"), core.PerMinute(3).Named("steady")},
	} {
		l, clock := newLimiter(t, policies...)
		ctx := context.Background()
		sawDenial := false
		for i := 0; i < 5; i++ {
			d, err := l.Allow(ctx, "k")
			require.NoError(t, err)
			s := d.States()[d.Index]
			assert.Equal(t, core.PolicyState{Allowed: d.Allowed, Remaining: d.Remaining, ResetAfter: d.ResetAfter, RetryAfter: d.RetryAfter}, s)
			assert.Equal(t, d.Policies[d.Index], d.Policy())
			assert.Equal(t, d.Policy().Limit, d.Limit)
			if !d.Allowed {
				sawDenial = true
				assert.Positive(t, d.RetryAfter)
			}
			clock.Advance(100 * time.Millisecond)
		}
		assert.True(t, sawDenial, "%d policies: the sequence must reach a denial", len(policies))
	}
}

// answerStore answers every call with a fixed Result and error.
type answerStore struct {
	r   core.Result
	err error
}

func (s answerStore) Take(context.Context, string, []core.Policy, int64, time.Time) (core.Result, error) {
	return s.r, s.err
}

func (s answerStore) Peek(context.Context, string, []core.Policy, int64, time.Time) (core.Result, error) {
	return s.r, s.err
}

func (answerStore) Reset(context.Context, string, []core.Policy) error { return nil }

func TestFallbackAnswersAreDecisions(t *testing.T) {
	denied := core.Result{}
	denied.States[0] = core.PolicyState{Remaining: 0, ResetAfter: time.Minute, RetryAfter: time.Second}
	denied.States[1] = core.PolicyState{Allowed: true, Remaining: 7, ResetAfter: time.Hour}
	other := errors.New("store down")
	ps := []core.Policy{core.PerMinute(5).Named("minute"), core.PerHour(10).Named("hour")}
	tests := []struct {
		name     string
		err      error
		wantErr  error
		fallback bool
	}{
		{"store answer", nil, nil, false},
		{"fallback answer", standin.ErrFallback, nil, true},
		{"wrapped fallback answer", fmt.Errorf("decorator: %w", standin.ErrFallback), nil, true},
		{"store error", other, other, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := core.NewLimiter(answerStore{r: denied, err: tt.err}, ps)
			require.NoError(t, err)
			for _, ask := range []func() (core.Decision, error){
				func() (core.Decision, error) { return l.Allow(context.Background(), "k") },
				func() (core.Decision, error) { return l.Peek(context.Background(), "k", 1) },
			} {
				d, err := ask()
				if tt.wantErr != nil {
					require.ErrorIs(t, err, tt.wantErr)
					assert.Equal(t, core.Decision{}, d, "no decision with an error")
					continue
				}
				require.NoError(t, err)
				assert.Equal(t, tt.fallback, d.Fallback)
				assert.False(t, d.Allowed)
				assert.Equal(t, "minute", d.Policy().Name, "the answer is decided as usual")
				assert.Equal(t, time.Second, d.RetryAfter)
				assert.Equal(t, denied.States[:len(d.Policies)], d.States())
			}
		})
	}
}

func TestDecisionPolicyOnHandMadeDecisions(t *testing.T) {
	var d core.Decision
	assert.Equal(t, core.Policy{}, d.Policy(), "zero Decision")
	a, b := core.PerSecond(1).Named("a"), core.PerMinute(2).Named("b")
	d.Policies = []core.Policy{a, b}
	for index, want := range map[int]core.Policy{0: a, 1: b, 2: {}, -1: {}} {
		d.Index = index
		assert.Equal(t, want, d.Policy(), "Index %d", index)
	}
}

// States is a view of the Decision's own storage: one state per policy,
// no allocation, and writable, so a test can build a Decision by hand.
func TestDecisionStatesIsAView(t *testing.T) {
	l, _ := newLimiter(t, core.PerSecond(3).Named("burst"), core.PerMinute(4).Named("steady"))
	d, err := l.Allow(context.Background(), "k")
	require.NoError(t, err)
	require.Len(t, d.States(), 2, "one state per policy, not MaxPolicies")
	assert.Equal(t, int64(3), d.States()[1].Remaining)
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = d.States() }))

	var h core.Decision
	assert.Empty(t, h.States(), "no policies, no states")
	h.Policies = []core.Policy{core.PerMinute(5)}
	h.States()[0] = core.PolicyState{Allowed: true, Remaining: 4}
	assert.Equal(t, int64(4), h.States()[0].Remaining)

	h.Policies = make([]core.Policy, core.MaxPolicies+1)
	assert.Len(t, h.States(), core.MaxPolicies, "a hand-made Decision with too many policies")
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
