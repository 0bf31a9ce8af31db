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
)

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
