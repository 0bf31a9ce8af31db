package metrics_test

import (
	"math"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/metrics"
)

func TestNewRejectsInvalidOptions(t *testing.T) {
	tests := []struct {
		name   string
		opt    metrics.Option
		naming string
	}{
		{"negative near limit", metrics.WithNearLimit(-0.1), "WithNearLimit"},
		{"near limit over one", metrics.WithNearLimit(1.5), "WithNearLimit"},
		{"NaN near limit", metrics.WithNearLimit(math.NaN()), "WithNearLimit"},
		{"zero routes", metrics.WithMaxRoutes(0), "WithMaxRoutes"},
		{"zero policies", metrics.WithMaxPolicies(0), "WithMaxPolicies"},
		{"no buckets", metrics.WithBuckets(nil), "WithBuckets"},
		{"equal buckets", metrics.WithBuckets([]float64{0.1, 0.1}), "WithBuckets"},
		{"decreasing buckets", metrics.WithBuckets([]float64{1, 0.5}), "WithBuckets"},
		{"a NaN bucket", metrics.WithBuckets([]float64{math.NaN()}), "WithBuckets"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := metrics.New(tt.opt)
			require.ErrorIs(t, err, core.ErrInvalidConfig)
			assert.Contains(t, err.Error(), tt.naming)
			assert.Nil(t, c)
		})
	}
}

// Two Collectors fit on one registry when the registry wrappers tell them
// apart: a prefix on the names, or a fixed label.
func TestTwoCollectorsOnOneRegistry(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	a, err := metrics.New()
	require.NoError(t, err)
	b, err := metrics.New(metrics.WithBuckets([]float64{0.001, 0.01}))
	require.NoError(t, err)
	require.NoError(t, prometheus.WrapRegistererWithPrefix("api_", reg).Register(a))
	require.NoError(t, prometheus.WrapRegistererWith(prometheus.Labels{"limiter": "admin"}, reg).Register(b))
	a.Observe(allowedEvent("/a", 50))
	b.Observe(allowedEvent("/b", 50))

	mfs, err := reg.Gather()
	require.NoError(t, err)
	byName := map[string]map[string]string{}
	for _, mf := range mfs {
		if len(mf.GetMetric()) > 0 {
			byName[mf.GetName()] = labelsOf(mf.GetMetric()[0])
		}
	}
	assert.Equal(t, "/a", byName["api_ratewindow_requests_total"]["route"])
	assert.Equal(t, "admin", byName["ratewindow_requests_total"]["limiter"])
	assert.Equal(t, "admin", byName["ratewindow_circuit_breaker_state"]["limiter"])
	assert.Contains(t, byName, "api_ratewindow_circuit_breaker_state")
	assert.Contains(t, byName, "api_ratewindow_store_call_duration_seconds")
}
