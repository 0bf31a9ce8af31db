package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/ratewindow/ratewindow/bench/peers"
)

func m(kv ...any) map[string]float64 {
	out := map[string]float64{}
	for i := 0; i < len(kv); i += 2 {
		out[kv[i].(string)] = kv[i+1].(float64)
	}
	return out
}

// sampleGroups is a small run: memory tables, a Redis table with
// redis_rate and the floor, and a one-shot table.
func sampleGroups() []group {
	return []group{
		{Name: "MemoryHotKey", Rows: []row{
			{Name: "ratewindow-fixed", Metrics: m("ns/op", 40.0, "allocs/op", 0.0, "cpu-ns/op", 30.0)},
			{Name: "sethvargo", Metrics: m("ns/op", 84.0, "allocs/op", 0.0, "cpu-ns/op", 80.0)},
			{Name: "ulule", Metrics: m("ns/op", 284.0, "allocs/op", 2.0, "cpu-ns/op", 70.0)},
		}},
		{Name: "MemoryHotKeyParallel/goroutines-64", Rows: []row{
			{Name: "ratewindow-fixed", Metrics: m("ns/op", 25.0)},
			{Name: "sethvargo", Metrics: m("ns/op", 50.0)},
		}},
		{Name: "MemoryKeys1M", Rows: []row{
			{Name: "ratewindow-fixed", Metrics: m("ns/op", 150.0, "B/key", 40.0)},
			{Name: "sethvargo", Metrics: m("ns/op", 344.0, "B/key", 135.0)},
		}},
		{Name: "RedisParallel/cluster", Rows: []row{
			{Name: "ratewindow-sliding", Metrics: m("ns/op", 9000.0, "decisions/s", 111111.0, "redis-cpu-us/op", 7.9, "p50-us", 500.0)},
			{Name: "redis_rate", Metrics: m("ns/op", 12000.0, "decisions/s", 83333.0, "redis-cpu-us/op", 10.7, "p50-us", 700.0)},
			{Name: "incr-expire", Metrics: m("ns/op", 8000.0, "decisions/s", 125000.0)},
		}},
		{Name: "RedisMemoryPerKey", OneShot: true, Rows: []row{
			{Name: "ratewindow-sliding", Metrics: m("ns/op", 3e9, "info-bytes/key", 155.6, "usage-bytes/key", 104.0)},
			{Name: "incr-expire", Metrics: m("ns/op", 1.6e9, "info-bytes/key", 112.5)},
			{Name: "redis_rate", Metrics: m("ns/op", 3.4e9, "info-bytes/key", 155.6)},
		}},
	}
}

func TestWriteReport(t *testing.T) {
	start := time.Date(2026, 11, 23, 4, 0, 0, 0, time.UTC)
	rep := report{
		Machine:  machine{CPUs: 2, CPU: "Test CPU", Go: "go1.26.8", Redis: "7.0.15", Load: "0.10 0.20 0.30", OS: "linux/amd64", Started: start},
		Finished: start.Add(90 * time.Second),
		LoadEnd:  "1.50 0.50 0.40",
		Command:  "go test -bench .",
		Passes:   5,
		Groups:   sampleGroups(),
		HTTPLoad: "`wrk -t2 -c64 -d10s`",
		HTTP: []httpRow{
			{Name: "nethttp-bare", RPS: []float64{54000}, Latency: "1.2ms"},
			{Name: "nethttp-ratewindow-sliding", Floor: "nethttp-bare", RPS: []float64{52000, 51000, 53000}, Ratios: []float64{0.96, 0.93, 0.98}, Latency: "1.3ms"},
			{Name: "nethttp-httprate", Floor: "nethttp-bare", Err: "wrk saw 3 non-2xx responses"},
		},
		Accuracy: []peers.AccuracyResult{
			{Peer: "ratewindow-log", Algorithm: "sliding log", Limit: 100, Window: 10 * time.Second, MaxInWindow: 100},
			{Peer: "ulule", Algorithm: "fixed window", Limit: 100, Window: time.Second, RealTime: true, MaxInWindow: 199},
		},
		Profiles:     []namedProfile{{Server: "BenchmarkMemoryHotKey/ratewindow-sliding", Top: "      flat  flat%\n 0.1s 10% core.(*Limiter).AllowN\n"}},
		HTTPProfiles: []namedProfile{{Server: "nethttp-ratewindow-sliding", Top: " 0.15s 10.71% nethttp.New.wrap.func1.1\n", Own: 0.042}},
		Notes:        []string{"a note"},
	}
	var b bytes.Buffer
	writeReport(&b, rep)
	out := b.String()
	for _, want := range []string{
		"on 2026-11-23 04:00 UTC",
		"Go benchmarks: `go test -bench .`; medians over 5 timed pass(es).",
		"| CPU | Test CPU, 2 logical CPUs |",
		"| Redis | 7.0.15 |",
		"| run time | 1m30s |",
		"| load average at start / end | 0.10 0.20 0.30 / 1.50 0.50 0.40 |",
		"## MemoryKeys1M\n\nIn-memory limiters, a million distinct keys",
		"| limiter | algorithm | ns/op | decisions/s | allocs/op | B/op | B/key | vs fastest peer |",
		"| **ratewindow-fixed** | fixed window | 150 | 6.67M | – | – | 40 | 2.29× |",
		"## MemoryHotKeyParallel/goroutines-64\n\nIn-memory limiters, one key",
		"| **ratewindow-fixed** | fixed window | 25.0 | 40.00M | – | – | 2.00× |",
		"## RedisParallel/cluster\n\nRedis-backed limiters, 64 goroutines",
		"| limiter | algorithm | ns/op | decisions/s | allocs/op | B/op | p50-us | redis-cpu-us/op | vs fastest peer | vs redis_rate | vs floor |",
		"| **ratewindow-sliding** | sliding window counter | 9000 | 111.1k | – | – | 500 | 7.9 | 1.33× | 1.33× | 0.89× |",
		"| incr-expire | floor: INCR+PEXPIRE pipeline | 8000 | 125.0k | – | – | – | – | 1.50× | 1.50× | 1.00× |",
		"MEMORY USAGE.\n\n| limiter | algorithm | allocs/op | B/op | info-bytes/key | usage-bytes/key |\n",
		"| redis_rate | GCRA | – | – | 155.6 | – |",
		"| **nethttp-ratewindow-sliding** | 52.0k | 3 | 1.3ms | 0.96× | 0.93×–0.98× |  |",
		"| nethttp-httprate | – | 0 | unknown | – | – | wrk saw 3 non-2xx responses |",
		"| **ratewindow-log** | sliding log | fake | 100 per 10s | 100 | 1.00× |",
		"| ulule | fixed window | real | 100 per 1s | 199 | 1.99× |",
		"## Where the time of MemoryHotKey/ratewindow-sliding goes\n\nCPU profile of `BenchmarkMemoryHotKey/ratewindow-sliding`",
		"core.(*Limiter).AllowN",
		"## Where the time of nethttp-ratewindow-sliding goes under wrk",
		"10.71% nethttp.New.wrap.func1.1",
		"took 4.2 % of the process's CPU time",
		"- a note",
	} {
		assert.Contains(t, out, want)
	}
	assert.Equal(t, 1, strings.Count(out, "## MemoryHotKey\n"))
	for _, banned := range []string{"issue", "target", "Target"} {
		assert.NotContains(t, out, banned, "the report says what was measured, nothing more")
	}
	assert.NotRegexp(t, `#[0-9]`, out)
}

func TestTrimProfile(t *testing.T) {
	in := "File: x\nBuild ID: y\nType: cpu\nTime: now\nDuration: 2s\n  flat  flat%\n"
	assert.Equal(t, "Duration: 2s\n  flat  flat%", trimProfile(in))
}
