package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/bench/peers"
)

func m(kv ...any) map[string]float64 {
	out := map[string]float64{}
	for i := 0; i < len(kv); i += 2 {
		out[kv[i].(string)] = kv[i+1].(float64)
	}
	return out
}

// sampleGroups is a run in which the fixed window meets every memory target
// and the sliding counter misses each one.
func sampleGroups() []group {
	return []group{
		{Name: "MemoryHotKey", Rows: []row{
			{Name: "ratewindow-fixed", Metrics: m("ns/op", 40.0, "allocs/op", 0.0, "cpu-ns/op", 30.0)},
			{Name: "ratewindow-sliding", Metrics: m("ns/op", 50.0, "allocs/op", 1.0)},
			{Name: "ratewindow-fixed-coarse", Metrics: m("ns/op", 70.0, "allocs/op", 0.0)},
			{Name: "sethvargo", Metrics: m("ns/op", 84.0, "allocs/op", 0.0, "cpu-ns/op", 80.0)},
			{Name: "ulule", Metrics: m("ns/op", 284.0, "allocs/op", 2.0, "cpu-ns/op", 70.0)},
		}},
		{Name: "MemoryHotKeyParallel", Rows: []row{
			{Name: "ratewindow-fixed", Metrics: m("ns/op", 25.0)},
			{Name: "ratewindow-sliding", Metrics: m("ns/op", 60.0)},
		}},
		{Name: "MemoryKeys1M", Rows: []row{
			{Name: "ratewindow-fixed", Metrics: m("ns/op", 150.0, "B/key", 40.0)},
			{Name: "ratewindow-sliding", Metrics: m("ns/op", 200.0, "B/key", 49.0)},
			{Name: "sethvargo", Metrics: m("ns/op", 344.0, "B/key", 135.0)},
		}},
		{Name: "MemoryLogStamps", Rows: []row{
			{Name: "ratewindow-log", Metrics: m("ns/op", 100.0, "B/stamp", 8.0)},
		}},
		{Name: "RedisParallel", Rows: []row{
			{Name: "incr-expire", Metrics: m("ns/op", 18000.0)},
			{Name: "ratewindow-sliding", Metrics: m("ns/op", 18500.0, "redis-B/key", 96.0)},
			{Name: "ratewindow-fixed", Metrics: m("ns/op", 20000.0)},
			{Name: "redis_rate", Metrics: m("ns/op", 23000.0)},
		}},
		{Name: "RedisMemoryPerKey", Rows: []row{
			{Name: "ratewindow-sliding", Metrics: m("ns/op", 3e9, "info-bytes/key", 155.6, "usage-bytes/key", 104.0)},
			{Name: "incr-expire", Metrics: m("ns/op", 1.6e9, "info-bytes/key", 112.5)},
			{Name: "redis_rate", Metrics: m("ns/op", 3.4e9, "info-bytes/key", 155.6)},
		}},
	}
}

func byTarget(vs []verdict) map[string]verdict {
	out := map[string]verdict{}
	for _, v := range vs {
		out[v.Target] = v
	}
	return out
}

func TestMemoryTargets(t *testing.T) {
	vs := byTarget(memoryTargets(sampleGroups()))
	for target, want := range map[string]string{
		"ratewindow-fixed, hot key: ≥ 2× the fastest peer, 0 allocs/op":        "yes", // 84/40 = 2.1
		"ratewindow-fixed: parallel hot key ns/op ≤ serial":                    "yes",
		"ratewindow-fixed, 1M keys: ≥ 2× the fastest peer":                     "yes",
		"ratewindow-fixed, 1M keys: heap per key ≤ 48 B/key":                   "yes",
		"ratewindow-sliding, hot key: ≥ 2× the fastest peer, 0 allocs/op":      "NO", // 1.68×, 1 alloc
		"ratewindow-sliding: parallel hot key ns/op ≤ serial":                  "NO",
		"ratewindow-sliding, 1M keys: ≥ 2× the fastest peer":                   "NO",
		"ratewindow-sliding, 1M keys: heap per key ≤ 48 B/key":                 "NO",
		"ratewindow-log: heap per stored timestamp ≤ 8 B/stamp":                "yes",
		"ratewindow-fixed-coarse, hot key: ≥ 2× the fastest peer, 0 allocs/op": "NO", // 84/70
		"ratewindow-fixed, hot key (issue #2) ≤ 60 ns/op":                      "yes",
		"ratewindow-fixed-coarse, hot key (issue #2) ≤ 60 ns/op":               "NO",
		"ratewindow-sliding-coarse, hot key (issue #2) ≤ 60 ns/op":             "not measured",
	} {
		v, ok := vs[target]
		require.True(t, ok, target)
		assert.Equal(t, want, v.Holds, "%s: %s", target, v.Measured)
	}
	assert.Equal(t, "40.0 ns vs sethvargo 84.0 ns: 2.10× (by CPU time: 2.33×), 0 allocs/op",
		vs["ratewindow-fixed, hot key: ≥ 2× the fastest peer, 0 allocs/op"].Measured,
		"the CPU ratio uses the least CPU time of any peer (ulule's 70)")
	assert.NotContains(t, vs["ratewindow-sliding, hot key: ≥ 2× the fastest peer, 0 allocs/op"].Measured, "CPU time")
}

func TestTargetsNotMeasured(t *testing.T) {
	for _, v := range memoryTargets(nil) {
		assert.Equal(t, notMeasured, v.Holds, v.Target)
	}
	for _, v := range httpTargets(nil) {
		assert.Equal(t, notMeasured, v.Holds, v.Target)
	}
	for _, v := range accuracyTargets([]peers.AccuracyResult{{Peer: "httprate"}}) {
		assert.Equal(t, notMeasured, v.Holds, v.Target)
	}
	assert.Empty(t, redisTargets(sampleGroups()[:4]))
}

func TestRedisTargets(t *testing.T) {
	vs := byTarget(redisTargets(sampleGroups()))
	for target, want := range map[string]string{
		"RedisParallel / ratewindow-sliding: ≥ 0.95× the incr-expire floor": "yes", // 18000/18500 = 0.973
		"RedisParallel / ratewindow-fixed: ≥ 0.95× the incr-expire floor":   "NO",  // 0.9
		"RedisParallel / ratewindow-sliding: ≥ 1.2× redis_rate":             "yes", // 1.243
		"RedisParallel / ratewindow-fixed: ≥ 1.2× redis_rate":               "NO",  // 1.15
		"RedisParallel / ratewindow-sliding: ≥ 1× redis_rate (issue #3)":    "yes",
		"RedisParallel / ratewindow-sliding: ≤ 100 redis-B/key":             "yes",
		"RedisMemoryPerKey / ratewindow-sliding: ≤ 100 info-bytes/key":      "NO",
		"RedisMemoryPerKey / ratewindow-sliding: ≤ 100 usage-bytes/key":     "NO",
	} {
		v, ok := vs[target]
		require.True(t, ok, target)
		assert.Equal(t, want, v.Holds, "%s: %s", target, v.Measured)
	}
	assert.Len(t, vs, 8, "no throughput targets on the one-shot memory group")
}

func TestHTTPTargets(t *testing.T) {
	rows := []httpRow{
		{Name: "nethttp-bare", RPS: []float64{100, 90, 110}},
		{Name: "nethttp-ratewindow", Floor: "nethttp-bare", RPS: []float64{96}},
		{Name: "fiber-bare", RPS: []float64{200}},
		{Name: "fiber-ratewindow", Floor: "fiber-bare", RPS: []float64{180}},
	}
	vs := byTarget(httpTargets(rows))
	assert.Equal(t, "yes", vs["nethttp-ratewindow: ≥ 0.95× bare req/s"].Holds)
	assert.Equal(t, "NO", vs["fiber-ratewindow: ≥ 0.95× bare req/s"].Holds)
	assert.Contains(t, vs["fiber-ratewindow: ≥ 0.95× bare req/s"].Measured, "0.90×")
}

func TestHTTPRatioIsPerRound(t *testing.T) {
	bare := httpRow{Name: "b", RPS: []float64{100, 50, 80, 90}}
	rw := httpRow{Name: "r", Floor: "b", RPS: []float64{95, 48, 0, 0}}
	// Rounds 1 and 2 measured both: 0.95 and 0.96; rounds 3 and 4 failed.
	assert.InDelta(t, 0.955, rw.ratio(bare), 1e-9)
	assert.Equal(t, []float64{95, 48}, rw.measured())
	assert.Equal(t, 71.5, rw.median())
	assert.Equal(t, 0.0, rw.ratio(httpRow{}))
}

func TestAccuracyTargets(t *testing.T) {
	ok := accuracyTargets([]peers.AccuracyResult{{Peer: "ratewindow-log", Limit: 100, MaxInWindow: 100}})
	assert.Equal(t, "yes", ok[0].Holds)
	bad := accuracyTargets([]peers.AccuracyResult{{Peer: "ratewindow-log", Limit: 100, MaxInWindow: 101}})
	assert.Equal(t, "NO", bad[0].Holds)
}
