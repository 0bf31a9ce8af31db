package core_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/internal/clocktest"
)

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
