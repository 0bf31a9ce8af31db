package metrics_test

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/require"
)

// gather registers c on a fresh registry and returns its metric families
// by name.
func gather(t *testing.T, c prometheus.Collector) map[string]*dto.MetricFamily {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	require.NoError(t, reg.Register(c))
	mfs, err := reg.Gather()
	require.NoError(t, err)
	out := make(map[string]*dto.MetricFamily, len(mfs))
	for _, mf := range mfs {
		out[mf.GetName()] = mf
	}
	return out
}

// labelsOf returns a metric's labels as a map.
func labelsOf(m *dto.Metric) map[string]string {
	out := make(map[string]string, len(m.GetLabel()))
	for _, l := range m.GetLabel() {
		out[l.GetName()] = l.GetValue()
	}
	return out
}

// histogramCounts returns the sample count of every route's series of the
// store call duration histogram.
func histogramCounts(t *testing.T, c prometheus.Collector) map[string]uint64 {
	t.Helper()
	out := map[string]uint64{}
	mf := gather(t, c)["ratewindow_store_call_duration_seconds"]
	if mf == nil {
		return out
	}
	for _, m := range mf.GetMetric() {
		out[labelsOf(m)["route"]] = m.GetHistogram().GetSampleCount()
	}
	return out
}

// breakerGauge returns the value of the circuit breaker gauge.
func breakerGauge(t *testing.T, c prometheus.Collector) float64 {
	t.Helper()
	mf := gather(t, c)["ratewindow_circuit_breaker_state"]
	require.NotNil(t, mf)
	require.Len(t, mf.GetMetric(), 1)
	return mf.GetMetric()[0].GetGauge().GetValue()
}
