package main

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/bench/httpbench"
)

// TestRunHTTPPairsWithFloor checks that each server is compared with its
// floor measured next to it: on a machine whose speed halves for four
// runs in every eight, each server still comes out at its true ratio to
// its floor, however far apart in a round the runs are.
func TestRunHTTPPairsWithFloor(t *testing.T) {
	servers := []httpbench.Server{
		{Name: "bare"},
		{Name: "a", Floor: "bare"},
		{Name: "b", Floor: "bare"},
		{Name: "c", Floor: "bare"},
		{Name: "d", Floor: "bare"},
		{Name: "fiber-bare"},
		{Name: "e", Floor: "fiber-bare"},
	}
	speed := map[string]float64{"bare": 1, "a": 0.95, "b": 0.9, "c": 1.02, "d": 0.5, "fiber-bare": 2, "e": 1.9}
	calls := 0
	var order []string
	measure := func(_ context.Context, s httpbench.Server) (httpbench.Result, error) {
		calls++
		order = append(order, s.Name)
		machine := 100000.0
		if (calls-1)%8 >= 4 { // busy for four runs in eight
			machine /= 2
		}
		return httpbench.Result{ReqPerSec: machine * speed[s.Name], Latency: "1ms"}, nil
	}
	rows := runHTTP(context.Background(), servers, measure, 3, io.Discard)
	require.Len(t, rows, len(servers))
	assert.Equal(t, []string{"bare", "a", "bare", "b", "bare", "c", "bare", "d", "fiber-bare", "e"}, order[:10], "round 1: floor first")
	assert.Equal(t, []string{"a", "bare", "b", "bare"}, order[10:14], "round 2: server first")
	for _, r := range rows {
		if r.Floor == "" {
			assert.Zero(t, r.ratio(), r.Name)
			continue
		}
		assert.Len(t, r.Ratios, 3, r.Name)
		assert.InDelta(t, speed[r.Name]/speed[r.Floor], r.ratio(), 1e-9, r.Name)
	}
	bare, _ := findHTTP(rows, "bare")
	assert.Len(t, bare.RPS, 12, "the floor runs once in every pair")
}

// TestRunHTTPFailedRun checks that a failed run is reported and leaves
// its pair out of the ratios, not counted as zero.
func TestRunHTTPFailedRun(t *testing.T) {
	servers := []httpbench.Server{{Name: "bare"}, {Name: "a", Floor: "bare"}}
	calls := 0
	measure := func(_ context.Context, s httpbench.Server) (httpbench.Result, error) {
		calls++
		if s.Name == "a" && calls == 2 {
			return httpbench.Result{}, errors.New("wrk saw 3 non-2xx responses")
		}
		return httpbench.Result{ReqPerSec: map[string]float64{"bare": 1000, "a": 900}[s.Name]}, nil
	}
	rows := runHTTP(context.Background(), servers, measure, 2, io.Discard)
	a, _ := findHTTP(rows, "a")
	assert.Equal(t, "wrk saw 3 non-2xx responses", a.Err)
	assert.Equal(t, []float64{900}, a.RPS)
	assert.Equal(t, []float64{0.9}, a.Ratios)
}

// TestProfileHTTP checks that only the named servers are profiled, each
// in a run of its own, and that a failed run leaves no profile.
func TestProfileHTTP(t *testing.T) {
	servers := []httpbench.Server{{Name: "bare"}, {Name: "a", Floor: "bare"}, {Name: "b", Floor: "bare"}}
	var ran []string
	measure := func(_ context.Context, s httpbench.Server) (httpbench.Result, error) {
		ran = append(ran, s.Name)
		if s.Name == "b" {
			return httpbench.Result{}, errors.New("wrk saw 3 non-2xx responses")
		}
		return httpbench.Result{ReqPerSec: 1000}, nil
	}
	profiles := profileHTTP(context.Background(), servers, []string{"a", "b"}, measure, io.Discard)
	assert.Equal(t, []string{"a", "b"}, ran)
	assert.NotEmpty(t, profiles["a"], "a profile of a")
	assert.NotContains(t, profiles, "b", "b's run failed")
	assert.NotContains(t, profiles, "bare", "bare is not named")
}

// TestHTTPComparisonGoesOnWithoutWrk checks that servers that fail their
// warm-up (here: no wrk) are reported, in their rows and in the notes,
// and do not stop the report.
func TestHTTPComparisonGoesOnWithoutWrk(t *testing.T) {
	o := options{wrk: "/nonexistent/wrk", threads: 1, conns: 1, httpDur: time.Second, warmup: time.Second, rounds: 1, profileDur: time.Second}
	var rep report
	require.NoError(t, runHTTPComparison(context.Background(), t.TempDir(), o, &rep, io.Discard))
	servers := len(httpbench.Servers()) + len(httpbench.FieldFloors()) + 1
	require.Len(t, rep.HTTP, servers)
	assert.Len(t, rep.Notes, servers, "one note per server")
	for _, r := range rep.HTTP {
		if r.Floor != "" {
			assert.Contains(t, r.Err, "warm-up", r.Name)
		}
		assert.Empty(t, r.RPS, r.Name)
	}
	assert.Empty(t, rep.HTTPProfiles)
}
