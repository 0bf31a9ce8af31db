package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
)

// runBadCalls makes the calls a Limiter never makes but a direct caller
// can: no policy, more than core.MaxPolicies, a cost below one. Each is
// refused with an error (ErrInvalidConfig for the policies,
// ErrInvalidCost for the cost), never a panic, and charges nothing. Reset
// with no policy or too many may do nothing or return ErrInvalidConfig.
// The empty key gets a decision or an error, never a panic. The
// calls just inside the contract (core.MaxPolicies policies, a cost of
// a whole limit) are decided.
func runBadCalls(t *testing.T, s core.Store) {
	ctx := context.Background()
	one := validated(t, core.Per(2, time.Second).Named("a"))
	many := make([]core.Policy, core.MaxPolicies+1)
	for i := range many {
		many[i] = validated(t, core.Per(2, time.Duration(i+1)*time.Second).Named(fmt.Sprintf("p%d", i)))[0]
	}
	calls := []struct {
		name     string
		policies []core.Policy
		cost     int64
		want     error
	}{
		{"no policy", nil, 1, core.ErrInvalidConfig},
		{"too many policies", many, 1, core.ErrInvalidConfig},
		{"zero cost", one, 0, core.ErrInvalidCost},
		{"negative cost", one, -1, core.ErrInvalidCost},
	}
	for _, c := range calls {
		_, err := s.Take(ctx, "bad", c.policies, c.cost, at(0))
		require.ErrorIs(t, err, c.want, "Take, %s", c.name)
		_, err = s.Peek(ctx, "bad", c.policies, c.cost, at(0))
		require.ErrorIs(t, err, c.want, "Peek, %s", c.name)
	}
	// Reset with no policy or too many: nothing to forget, or an error.
	for _, c := range calls[:2] {
		err := s.Reset(ctx, "bad", c.policies)
		if err != nil {
			require.ErrorIs(t, err, core.ErrInvalidConfig, "Reset, %s", c.name)
		}
	}
	// The empty key, which a Limiter refuses before any store call: a
	// decision or an error, never a panic.
	_, _ = s.Take(ctx, "", one, 1, at(0))
	_, _ = s.Peek(ctx, "", one, 1, at(0))
	_ = s.Reset(ctx, "", one)
	// Nothing was charged: the whole limit is still there.
	r, err := s.Take(ctx, "bad", one, 2, at(0))
	require.NoError(t, err)
	require.True(t, r.States[0].Allowed, "a refused call charged the key")

	// The edge of the contract: core.MaxPolicies policies and a cost of
	// a whole limit make a valid call, decided like any other.
	edge := many[:core.MaxPolicies]
	for i, want := range []bool{true, false} {
		r, err = s.Take(ctx, "edge", edge, 2, at(0))
		require.NoError(t, err, "Take with %d policies", len(edge))
		for j := range edge {
			require.Equal(t, want, r.States[j].Allowed, "request %d, policy %s", i, edge[j].Name)
			require.Zero(t, r.States[j].Remaining, "request %d, policy %s", i, edge[j].Name)
		}
		_, err = s.Peek(ctx, "edge", edge, 1, at(0))
		require.NoError(t, err, "Peek with %d policies", len(edge))
	}
}
