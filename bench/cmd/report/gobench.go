package main

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// sample is one result line of `go test -bench`.
type sample struct {
	Group   string             // "MemoryHotKey" (Benchmark prefix and GOMAXPROCS suffix removed)
	Name    string             // the last path element, "ratewindow-fixed"; "" for a benchmark without sub-benchmarks
	Metrics map[string]float64 // unit -> value: "ns/op", "allocs/op", "B/key", ...
}

// parseBench reads `go test -bench` output and returns its result lines in
// order. Other lines (goos, PASS, logs) are skipped; a result line that
// cannot be read is an error, so a format change is noticed.
func parseBench(r io.Reader) ([]sample, error) {
	var out []sample
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "Benchmark") {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 4 || len(f)%2 != 0 {
			// "BenchmarkX" alone is printed before a benchmark's logs.
			continue
		}
		if _, err := strconv.ParseInt(f[1], 10, 64); err != nil {
			continue
		}
		s, err := parseResult(f)
		if err != nil {
			return nil, fmt.Errorf("report: %q: %w", line, err)
		}
		out = append(out, s)
	}
	return out, sc.Err()
}

// parseResult reads name, iterations and (value, unit) pairs.
func parseResult(f []string) (sample, error) {
	full := strings.TrimPrefix(f[0], "Benchmark")
	// Drop the -GOMAXPROCS suffix the testing package appends.
	if i := strings.LastIndexByte(full, '-'); i > 0 {
		if _, err := strconv.Atoi(full[i+1:]); err == nil {
			full = full[:i]
		}
	}
	s := sample{Group: full, Metrics: map[string]float64{}}
	if i := strings.LastIndexByte(full, '/'); i >= 0 {
		s.Group, s.Name = full[:i], full[i+1:]
	}
	for i := 2; i+1 < len(f); i += 2 {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			return s, fmt.Errorf("metric %q: %w", f[i+1], err)
		}
		s.Metrics[f[i+1]] = v
	}
	if _, ok := s.Metrics["ns/op"]; !ok {
		return s, fmt.Errorf("no ns/op")
	}
	return s, nil
}
