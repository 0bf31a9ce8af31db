package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestWriteSummary(t *testing.T) {
	rep := report{
		Groups: sampleGroups(),
		HTTP: []httpRow{
			{Name: "nethttp-bare", RPS: []float64{50000, 60000}},
			{Name: "nethttp-ratewindow-sliding", Floor: "nethttp-bare", RPS: []float64{48000, 59400}, Ratios: []float64{0.96, 0.99}},
			{Name: "nethttp-httprate", Floor: "nethttp-bare", RPS: []float64{40000, 48000}, Ratios: []float64{0.8, 0.8}},
			{Name: "nethttp-bare-fields", Floor: "nethttp-bare", RPS: []float64{47000, 55200}, Ratios: []float64{0.94, 0.92}},
			{Name: "nethttp-bare-again", Floor: "nethttp-bare", RPS: []float64{51000, 59000}, Ratios: []float64{1.02, 0.98}},
			{Name: "fiber-bare", RPS: []float64{100000}},
		},
	}
	var b bytes.Buffer
	writeSummary(&b, rep)
	out := b.String()
	for _, want := range []string{
		"## Summary\n",
		"|---|---:|---:|---:|---|",
		"| measurement | fixed window | sliding window counter | sliding log | compared with |",
		"| memory, one key, 1 goroutine | 2.10× | – | – | fastest peer (sethvargo), decisions/s |",
		"| memory, one key, 64 goroutines | 2.00× | – | – | fastest peer (sethvargo), decisions/s |",
		"| memory, 1M keys | 2.29× | – | – | fastest peer (sethvargo), decisions/s |",
		"| Redis Cluster (3 masters), 64 goroutines | – | 1.33× | – | redis_rate, decisions/s |",
		"| Redis memory per tracked key, bytes | – | 155.6 | – | incr-expire 112.5 B, redis_rate 155.6 B |",
		// The median over rounds of the per-round ratios 0.96 and 0.99.
		"| HTTP req/s, net/http, handler sets Content-Type | – | 0.97× | – | the bare server (nethttp-httprate: 0.80×, nethttp-bare-fields: 0.93×, nethttp-bare-again: 1.00×) |",
		"| HTTP req/s, Fiber | – | – | – | the bare server |",
	} {
		assert.Contains(t, out, want)
	}
	assert.NotContains(t, out, "Redis, 64 goroutines |", "groups the run did not measure are left out")
	assert.NotContains(t, out, "no header", "servers the run did not measure are left out")

	b.Reset()
	writeSummary(&b, report{})
	assert.Empty(t, b.String())
}
