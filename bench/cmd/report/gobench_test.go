package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const goTestOut = `goos: linux
goarch: amd64
pkg: github.com/ratewindow/ratewindow/bench
cpu: Intel(R) Xeon(R) Processor
BenchmarkMemoryHotKey/ratewindow-fixed-2         	  292862	       807.8 ns/op	       0 B/op	       0 allocs/op
BenchmarkMemoryHotKey/ulule-2                    	  617216	      1131 ns/op	      32 B/op	       2 allocs/op
BenchmarkMemoryKeys1M/httprate-2                 	  420994	      1375 ns/op	        39.61 B/key	       0 B/op	       0 allocs/op
BenchmarkRedis/standalone/bare-incr-8            	   10000	     18000 ns/op	     55000 decisions/s
BenchmarkSolo-2                                  	 1000000	        12.5 ns/op
BenchmarkLogging
    memory_test.go:12: a log line
PASS
ok  	github.com/ratewindow/ratewindow/bench	14.558s
`

func TestParseBench(t *testing.T) {
	got, err := parseBench(strings.NewReader(goTestOut))
	require.NoError(t, err)
	assert.Equal(t, []sample{
		{Group: "MemoryHotKey", Name: "ratewindow-fixed", Metrics: map[string]float64{"ns/op": 807.8, "B/op": 0, "allocs/op": 0}},
		{Group: "MemoryHotKey", Name: "ulule", Metrics: map[string]float64{"ns/op": 1131, "B/op": 32, "allocs/op": 2}},
		{Group: "MemoryKeys1M", Name: "httprate", Metrics: map[string]float64{"ns/op": 1375, "B/key": 39.61, "B/op": 0, "allocs/op": 0}},
		{Group: "Redis/standalone", Name: "bare-incr", Metrics: map[string]float64{"ns/op": 18000, "decisions/s": 55000}},
		{Group: "Solo", Metrics: map[string]float64{"ns/op": 12.5}},
	}, got)
}

func TestParseBenchRejectsBrokenResults(t *testing.T) {
	for _, line := range []string{
		"BenchmarkX-2 100 abc ns/op",
		"BenchmarkX-2 100 5 B/op", // no ns/op
	} {
		_, err := parseBench(strings.NewReader(line + "\n"))
		assert.Error(t, err, line)
	}
}

func TestParseBenchKeepsDashesInNames(t *testing.T) {
	got, err := parseBench(strings.NewReader("BenchmarkA/x-rate-one 10 5 ns/op\n"))
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, "x-rate-one", got[0].Name, "a suffix that is not a number is part of the name")
}

func TestBenchPasses(t *testing.T) {
	o := options{bench: ".", benchtime: "1s", count: 3, once: "RedisMemoryPerKey"}
	got := benchPasses(o)
	require.Len(t, got, 4)
	timed := []string{"test", "-run", "^$", "-benchmem", "-count", "1", "-timeout", "60m", "-bench", ".", "-benchtime", "1s", "-skip", "RedisMemoryPerKey", "."}
	for i := range 3 {
		assert.Equal(t, timed, got[i], "pass %d", i+1)
	}
	assert.Equal(t, []string{"test", "-run", "^$", "-benchmem", "-count", "1", "-timeout", "60m", "-bench", "RedisMemoryPerKey", "."}, got[3])

	o.bench, o.count = "Memory", 0
	got = benchPasses(o)
	require.Len(t, got, 1, "a chosen -bench runs as is, at least once, with no -once pass")
	assert.NotContains(t, got[0], "-skip")

	o.bench, o.once = ".", ""
	assert.Len(t, benchPasses(o), 1)
}
