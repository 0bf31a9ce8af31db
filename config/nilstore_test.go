package config_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/config"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/redisstore"
)

// A nil store given to WithStore (a variable never set, a constructor's
// error ignored) fails Load and says so: it is not silently replaced by
// a memory store of this process alone, which would multiply a limit
// shared between replicas by their number. The error wraps
// core.ErrInvalidConfig, as every configuration error does.
func TestNilStoreRefused(t *testing.T) {
	path := file(t, limits(3, "enforce", "", 100))
	var unset core.Store
	var ignored *redisstore.Store
	for name, st := range map[string]core.Store{"nil": unset, "typed nil": ignored} {
		_, err := config.Load(path, config.WithStore(st), quiet())
		require.Error(t, err, name)
		assert.ErrorContains(t, err, "config: WithStore: nil store", name)
		// A nil store is a configuration error, as core's and
		// resilient's constructors report theirs.
		assert.ErrorIs(t, err, core.ErrInvalidConfig, name)
	}
}
