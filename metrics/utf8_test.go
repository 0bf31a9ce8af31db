package metrics_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/metrics"
)

// A label value must be valid UTF-8, or client_golang panics. A policy
// name built from data (a tenant's name in Latin-1, say) or a route
// pattern with such bytes must not turn every request into a panic.
func TestInvalidUTF8LabelsDoNotPanic(t *testing.T) {
	c, err := metrics.New()
	require.NoError(t, err)
	ev := allowedEvent("/caf\xe9", 5)
	ev.Decision.Policies = []core.Policy{core.PerMinute(100).Named("tier-\xff")}
	require.NotPanics(t, func() { c.Observe(ev) })
	assert.Equal(t, 1.0, requests(t, c, "/caf\ufffd", "tier-\ufffd", "allowed"))
}
