package resilient_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/core/resilient"
)

// A denial remembered before the clock stepped back is dropped once a
// call for the key reaches the primary at an earlier instant: the primary
// may have moved the key's counts to that instant (core/memory does, for
// a now more than a window before them), and once the clock is back past
// the denial the primary admits what the cache would still refuse. Here
// the call that moves them is of another policy set sharing a policy, and
// is itself denied, so nothing else tells the cache the counts changed.
func TestDenyCacheForgetsDenialsAfterClockStepBack(t *testing.T) {
	ctx := context.Background()
	a := core.Per(2, time.Second).Using(core.FixedWindow).Named("a")
	setA := policies(a)
	setB := policies(a, core.Per(1, time.Hour).Using(core.FixedWindow).Named("b"))
	bare := memory.New()
	s, err := resilient.New(memory.New(), resilient.WithDenyCache())
	require.NoError(t, err)
	// take asks both stores and reports the cached one's answer, once the
	// bare one's is as want.
	take := func(ps []core.Policy, at time.Duration, want bool) bool {
		t.Helper()
		r, err := bare.Take(ctx, "k", ps, 1, t0.Add(at))
		require.NoError(t, err)
		require.Equal(t, want, allowed(r, len(ps)), "the bare store at %v", at)
		r, err = s.Take(ctx, "k", ps, 1, t0.Add(at))
		require.NoError(t, err)
		return allowed(r, len(ps))
	}
	require.True(t, take(setB, 10*time.Second, true))           // a: 1 of 2, b: 1 of 1
	require.True(t, take(setA, 10100*time.Millisecond, true))   // a: 2 of 2
	require.False(t, take(setA, 10200*time.Millisecond, false)) // remembered until 11s
	// The clock steps back by more than a window: b denies, and a's count
	// moves to the window [8s, 9s).
	require.False(t, take(setB, 8500*time.Millisecond, false))
	// Back at 10.3s, that window has ended: a admits again on the primary.
	assert.True(t, take(setA, 10300*time.Millisecond, true), "a denial from before the step back was answered from the cache")
}
