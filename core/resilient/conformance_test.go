package resilient_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/core/resilient"
	"github.com/ratewindow/ratewindow/core/storetest"
)

// TestConformance: over a healthy primary the decorator changes no
// decision.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) core.Store {
		s, err := resilient.New(memory.New(), resilient.WithFallback(3))
		require.NoError(t, err)
		return s
	})
}
