package main

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// row is the median of every metric of one benchmark over its samples.
type row struct {
	Group, Name string
	Samples     int
	Metrics     map[string]float64
}

// kind tells ratewindow's rows, the floors and the peers apart by name: a
// row named ratewindow* is ours; a row whose name has "floor", starts with
// "bare" or is "incr-expire" (the one-round-trip INCR+PEXPIRE pipeline of
// the Redis benchmarks) is a floor, the least work any limiter must do;
// every other row is a peer.
type kind int

const (
	peer kind = iota
	ours
	floor
)

func kindOf(name string) kind {
	n := strings.ToLower(name)
	switch {
	case strings.HasPrefix(n, "ratewindow"):
		return ours
	case strings.Contains(n, "floor") || strings.HasPrefix(n, "bare") || n == "incr-expire":
		return floor
	}
	return peer
}

// median returns the median of xs (the mean of the middle two for an even
// count), or 0 for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// medians groups samples by (Group, Name) in order of first appearance and
// takes the median of each metric.
func medians(samples []sample) []row {
	type key struct{ g, n string }
	var order []key
	vals := map[key]map[string][]float64{}
	for _, s := range samples {
		k := key{s.Group, s.Name}
		if vals[k] == nil {
			vals[k] = map[string][]float64{}
			order = append(order, k)
		}
		for u, v := range s.Metrics {
			vals[k][u] = append(vals[k][u], v)
		}
	}
	rows := make([]row, 0, len(order))
	for _, k := range order {
		r := row{Group: k.g, Name: k.n, Metrics: map[string]float64{}}
		for u, vs := range vals[k] {
			r.Metrics[u] = median(vs)
			r.Samples = max(r.Samples, len(vs))
		}
		if ns := vals[k]["ns/op"]; len(ns) > 1 && bimodal(k.g) {
			r.Metrics[fastestUnit] = slices.Min(ns)
		}
		rows = append(rows, r)
	}
	return rows
}

// fastestUnit is the metric that holds the fastest pass's ns/op, for the
// groups bimodal reports.
const fastestUnit = "fastest-ns/op"

// bimodal reports whether the group is one key from many goroutines: on a
// VM its passes fall into a fast and a slow mode (up to 2× apart, for
// every limiter alike, as the host places the two virtual CPUs), so its
// tables show the fastest pass beside the median.
func bimodal(group string) bool {
	return strings.HasPrefix(group, "MemoryHotKeyParallel/")
}

// decisionsPerSec is the row's own "decisions/s" metric, else 1e9/ns/op:
// in a parallel benchmark ns/op is wall time per decision, so this is the
// throughput of the whole process.
func (r row) decisionsPerSec() float64 {
	if v, ok := r.Metrics["decisions/s"]; ok {
		return v
	}
	if ns := r.Metrics["ns/op"]; ns > 0 {
		return 1e9 / ns
	}
	return 0
}

// group is the rows of one benchmark, in order.
type group struct {
	Name string
	Rows []row
	// OneShot is set for benchmarks that weigh rather than time (filling
	// 100,000 keys to weigh them): their ns/op is no decision time, so
	// neither rates nor ratios are shown.
	OneShot bool
}

func groups(rows []row) []group {
	var gs []group
	for _, r := range rows {
		i := slices.IndexFunc(gs, func(g group) bool { return g.Name == r.Group })
		if i < 0 {
			gs = append(gs, group{Name: r.Group})
			i = len(gs) - 1
		}
		gs[i].Rows = append(gs[i].Rows, r)
	}
	return gs
}

// fastestPeer returns the peer row with the least ns/op.
func (g group) fastestPeer() (row, bool) {
	return g.best(peer)
}

// floorRow returns the floor row with the least ns/op.
func (g group) floorRow() (row, bool) {
	return g.best(floor)
}

func (g group) best(k kind) (row, bool) {
	return g.bestOn(k, "ns/op")
}

// bestOn returns the row of kind k with the least value of unit.
func (g group) bestOn(k kind, unit string) (row, bool) {
	var best row
	found := false
	for _, r := range g.Rows {
		if kindOf(r.Name) != k || r.Metrics[unit] <= 0 {
			continue
		}
		if !found || r.Metrics[unit] < best.Metrics[unit] {
			best, found = r, true
		}
	}
	return best, found
}

// find returns the row called name.
func (g group) find(name string) (row, bool) {
	i := slices.IndexFunc(g.Rows, func(r row) bool { return r.Name == name })
	if i < 0 {
		return row{}, false
	}
	return g.Rows[i], true
}

// speedup is how many times faster r is than ref (ref's ns/op over r's):
// 2 means twice as fast, 0.5 half as fast; 0 when either is missing.
func speedup(r, ref row) float64 {
	return speedupOn(r, ref, "ns/op")
}

// speedupOn is speedup on another time per decision (fastestUnit).
func speedupOn(r, ref row, unit string) float64 {
	a, b := r.Metrics[unit], ref.Metrics[unit]
	if a <= 0 || b <= 0 {
		return 0
	}
	return b / a
}

// markOneShot sets OneShot on the groups whose top-level benchmark name
// matches pattern (go test -bench syntax for the first level; "" matches
// nothing).
func markOneShot(gs []group, pattern string) error {
	if pattern == "" {
		return nil
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return fmt.Errorf("report: -once %q: %w", pattern, err)
	}
	for i := range gs {
		top, _, _ := strings.Cut(gs[i].Name, "/")
		gs[i].OneShot = re.MatchString(top)
	}
	return nil
}
