package config_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/config"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/nethttp"
)

// A Set that Load did not make (a nil *Set, Load's error ignored, or a
// zero Set) has no configuration: an adapter's New given its Options
// fails, rather than building a middleware that panics on every request,
// and Reload and Watch report it instead of panicking.
func TestSetNotMadeByLoad(t *testing.T) {
	for name, s := range map[string]*config.Set{"nil": nil, "zero": new(config.Set)} {
		t.Run(name, func(t *testing.T) {
			_, err := nethttp.New(nil, s.Options()...)
			require.ErrorIs(t, err, core.ErrInvalidConfig)
			assert.ErrorContains(t, err, "not made by Load")

			err = s.Reload()
			require.ErrorIs(t, err, core.ErrInvalidConfig)
			assert.ErrorContains(t, err, "not made by Load")

			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			s.Watch(ctx, 0) // returns, without a panic
		})
	}
}
