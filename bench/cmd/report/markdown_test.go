package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/ratewindow/ratewindow/bench/peers"
)

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
			{Name: "nethttp-ratewindow", Floor: "nethttp-bare", RPS: []float64{52000}, Latency: "1.3ms"},
			{Name: "nethttp-httprate", Floor: "nethttp-bare", Err: "wrk saw 3 non-2xx responses"},
		},
		Accuracy: []peers.AccuracyResult{
			{Peer: "ratewindow-log", Algorithm: "sliding log", Limit: 100, Window: 10 * time.Second, MaxInWindow: 100},
			{Peer: "ulule", Algorithm: "fixed window", Limit: 100, Window: time.Second, RealTime: true, MaxInWindow: 199},
		},
		Profile:      "      flat  flat%\n 0.1s 10% core.(*Limiter).AllowN\n",
		HTTPProfiles: []namedProfile{{"nethttp-ratewindow", " 0.15s 10.71% nethttp.New.wrap.func1.1\n"}},
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
		"## Targets of issues #2, #3 and #6",
		"| ratewindow-fixed, hot key: ≥ 2× the fastest peer, 0 allocs/op | 40.0 ns vs sethvargo 84.0 ns: 2.10× (by CPU time: 2.33×), 0 allocs/op | yes |",
		"## MemoryKeys1M",
		"| limiter | algorithm | ns/op | decisions/s | allocs/op | B/op | B/key | vs fastest peer |",
		"| **ratewindow-fixed** | fixed window | 150 | 6.67M | – | – | 40 | 2.29× |",
		"| limiter | algorithm | ns/op | decisions/s | allocs/op | B/op | redis-B/key | vs fastest peer | vs floor |",
		"| incr-expire | floor: INCR+PEXPIRE pipeline | 18000 | 55.6k | – | – | – | 1.28× | 1.00× |",
		"## RedisMemoryPerKey\n\n| limiter | algorithm | allocs/op | B/op | info-bytes/key | usage-bytes/key |\n",
		"| redis_rate | GCRA | – | – | 155.6 | – |",
		"| **nethttp-ratewindow** | 52.0k | 1 | 1.3ms | 0.96× |  |",
		"| nethttp-httprate | – | 0 | unknown | – | wrk saw 3 non-2xx responses |",
		"| **ratewindow-log** | sliding log | fake | 100 per 10s | 100 | 1.00× |",
		"| ulule | fixed window | real | 100 per 1s | 199 | 1.99× |",
		"core.(*Limiter).AllowN",
		"## Where the time of nethttp-ratewindow goes under wrk",
		"10.71% nethttp.New.wrap.func1.1",
		"- a note",
	} {
		assert.Contains(t, out, want)
	}
	assert.Equal(t, 1, strings.Count(out, "## MemoryHotKey\n"))
}

func TestTrimProfile(t *testing.T) {
	in := "File: x\nBuild ID: y\nType: cpu\nTime: now\nDuration: 2s\n  flat  flat%\n"
	assert.Equal(t, "Duration: 2s\n  flat  flat%", trimProfile(in))
}
