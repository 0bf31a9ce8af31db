package core_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
)

// A Limiter that NewLimiter did not make (the zero value, or the nil one
// a caller gets by ignoring NewLimiter's error) answers every call with an
// error wrapping ErrInvalidConfig: it never panics on the request path,
// and never admits a request it cannot decide.
func TestUnbuiltLimiterIsAnError(t *testing.T) {
	ctx := context.Background()
	for name, l := range map[string]*core.Limiter{"zero": new(core.Limiter), "nil": nil} {
		t.Run(name, func(t *testing.T) {
			d, err := l.Allow(ctx, "k")
			require.ErrorIs(t, err, core.ErrInvalidConfig)
			assert.Contains(t, err.Error(), "NewLimiter")
			assert.False(t, d.Allowed)
			_, err = l.AllowN(ctx, "k", 2)
			require.ErrorIs(t, err, core.ErrInvalidConfig)
			d, err = l.Peek(ctx, "k", 1)
			require.ErrorIs(t, err, core.ErrInvalidConfig)
			assert.False(t, d.Allowed)
			require.ErrorIs(t, l.Reset(ctx, "k"), core.ErrInvalidConfig)
			require.ErrorIs(t, l.SetPolicies(core.PerSecond(1)), core.ErrInvalidConfig)
			assert.Nil(t, l.Policies())
			assert.False(t, l.ProcessLocal())
			assert.Nil(t, l.Clock())
			_, err = l.Allow(ctx, "k")
			require.ErrorIs(t, err, core.ErrInvalidConfig, "SetPolicies did not make it usable")
		})
	}
}
