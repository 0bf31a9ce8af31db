package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{7}, 7},
		{[]float64{3, 1, 2}, 2},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{5, 100, 6, 4, 5}, 5},
	} {
		assert.Equal(t, c.want, median(c.in), "%v", c.in)
	}
	xs := []float64{3, 1, 2}
	median(xs)
	assert.Equal(t, []float64{3, 1, 2}, xs, "median does not reorder its input")
}

func TestKindOf(t *testing.T) {
	for name, want := range map[string]kind{
		"ratewindow-fixed":   ours,
		"RateWindow-sliding": ours,
		"bare-incr":          floor,
		"incr-expire-floor":  floor,
		"httprate":           peer,
		"redis_rate":         peer,
	} {
		assert.Equal(t, want, kindOf(name), name)
	}
}

func ns(g, n string, v float64) sample {
	return sample{Group: g, Name: n, Metrics: map[string]float64{"ns/op": v}}
}

func TestMediansAndGroups(t *testing.T) {
	rows := medians([]sample{
		ns("A", "ratewindow-fixed", 30), ns("A", "peer1", 100), ns("B", "x", 1),
		ns("A", "ratewindow-fixed", 10), ns("A", "peer1", 80), ns("A", "ratewindow-fixed", 20),
		ns("A", "bare", 5),
	})
	require.Len(t, rows, 4)
	assert.Equal(t, "ratewindow-fixed", rows[0].Name)
	assert.Equal(t, 20.0, rows[0].Metrics["ns/op"])
	assert.Equal(t, 3, rows[0].Samples)
	assert.Equal(t, 90.0, rows[1].Metrics["ns/op"])

	gs := groups(rows)
	require.Len(t, gs, 2)
	assert.Equal(t, "A", gs[0].Name)
	assert.Len(t, gs[0].Rows, 3)
	p, ok := gs[0].fastestPeer()
	require.True(t, ok)
	assert.Equal(t, "peer1", p.Name)
	f, ok := gs[0].floorRow()
	require.True(t, ok)
	assert.Equal(t, "bare", f.Name)
	_, ok = gs[1].fastestPeer()
	assert.True(t, ok, "x is a peer")
	_, ok = gs[1].floorRow()
	assert.False(t, ok)

	r, _ := gs[0].find("ratewindow-fixed")
	assert.InDelta(t, 4.5, speedup(r, p), 1e-9, "90 ns over 20 ns")
	assert.InDelta(t, 0.25, speedup(r, f), 1e-9)
	assert.Equal(t, 0.0, speedup(r, row{Metrics: map[string]float64{}}))
}

func TestDecisionsPerSec(t *testing.T) {
	assert.Equal(t, 50e6, row{Metrics: map[string]float64{"ns/op": 20}}.decisionsPerSec())
	assert.Equal(t, 7.0, row{Metrics: map[string]float64{"ns/op": 20, "decisions/s": 7}}.decisionsPerSec(),
		"a benchmark's own decisions/s wins")
	assert.Equal(t, 0.0, row{Metrics: map[string]float64{}}.decisionsPerSec())
}

// TestFastestPass checks that the bimodal groups (one key from many
// goroutines) carry the fastest pass beside the median, compared with the
// peer whose fastest pass was fastest, and that other groups do not.
func TestFastestPass(t *testing.T) {
	g8 := "MemoryHotKeyParallel/goroutines-8"
	rows := medians([]sample{
		// Two slow passes and one fast one for ratewindow, the other way
		// round for the peer: the medians disagree with the fast mode.
		ns(g8, "ratewindow-fixed", 120), ns(g8, "sethvargo", 50), ns(g8, "xrate-map", 100),
		ns(g8, "ratewindow-fixed", 45), ns(g8, "sethvargo", 140), ns(g8, "xrate-map", 90),
		ns(g8, "ratewindow-fixed", 125), ns(g8, "sethvargo", 55), ns(g8, "xrate-map", 95),
		ns("MemoryHotKey", "ratewindow-fixed", 80), ns("MemoryHotKey", "ratewindow-fixed", 70),
	})
	gs := groups(rows)
	require.Len(t, gs, 2)
	r, _ := gs[0].find("ratewindow-fixed")
	assert.Equal(t, 120.0, r.Metrics["ns/op"])
	assert.Equal(t, 45.0, r.Metrics[fastestUnit])
	ref, ok := gs[0].bestOn(peer, fastestUnit)
	require.True(t, ok)
	assert.Equal(t, "sethvargo", ref.Name)
	assert.InDelta(t, 50.0/45, speedupOn(r, ref, fastestUnit), 1e-9)
	serial, _ := gs[1].find("ratewindow-fixed")
	assert.NotContains(t, serial.Metrics, fastestUnit, "one goroutine is not bimodal")

	var b bytes.Buffer
	writeSummary(&b, report{Groups: gs})
	assert.Contains(t, b.String(), "| memory, one key, 8 goroutines | 0.46× | – | – | fastest peer (sethvargo), decisions/s |")
	assert.Contains(t, b.String(), "| memory, one key, 8 goroutines, fastest pass | 1.11× | – | – | fastest peer (sethvargo), decisions/s |")
	b.Reset()
	writeGroup(&b, gs[0])
	assert.Contains(t, b.String(), "| fastest-ns/op | vs fastest peer | fastest pass vs fastest peer's |")
	assert.Contains(t, b.String(), "| 45 | 0.46× | 1.11× |")
}
