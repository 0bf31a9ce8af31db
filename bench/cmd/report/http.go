package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"runtime/pprof"
	"slices"

	"github.com/ratewindow/ratewindow/bench/httpbench"
)

// httpRow is one server of the HTTP comparison over all rounds.
type httpRow struct {
	Name, Floor string
	RPS         []float64 // one per round, 0 for a round that failed
	Latency     string    // average latency of the last round
	Err         string    // the last error, if a round failed
}

// measured returns the req/s of the rounds that succeeded.
func (h httpRow) measured() []float64 {
	var out []float64
	for _, v := range h.RPS {
		if v > 0 {
			out = append(out, v)
		}
	}
	return out
}

func (h httpRow) median() float64 { return median(h.measured()) }

// ratio returns the median over rounds of h's req/s over f's in the same
// round (servers of one round run minutes apart at most, so a slow phase
// of the machine hurts both), 0 when no round measured both.
func (h httpRow) ratio(f httpRow) float64 {
	var rs []float64
	for i := range min(len(h.RPS), len(f.RPS)) {
		if h.RPS[i] > 0 && f.RPS[i] > 0 {
			rs = append(rs, h.RPS[i]/f.RPS[i])
		}
	}
	return median(rs)
}

func findHTTP(rows []httpRow, name string) (httpRow, bool) {
	for _, r := range rows {
		if r.Name == name && name != "" {
			return r, true
		}
	}
	return httpRow{}, false
}

// profiledServers are the servers whose CPU profiles under wrk RESULTS.md
// shows: where the time goes with ratewindow in front.
var profiledServers = []string{"nethttp-ratewindow-sliding", "fiber-ratewindow-sliding"}

// runHTTP measures every server rounds times, the servers interleaved in
// each round so that a noisy neighbour hurts all of them alike. With
// profile set, it also returns the CPU profile of this process (the
// in-process servers) during the last round of each of profiledServers.
func runHTTP(ctx context.Context, load httpbench.Load, rounds int, profile bool, log io.Writer) ([]httpRow, map[string][]byte) {
	profiles := map[string][]byte{}
	servers := append(httpbench.Servers(), httpbench.FieldFloors()...)
	rows := make([]httpRow, len(servers))
	for i, s := range servers {
		rows[i] = httpRow{Name: s.Name, Floor: s.Floor}
	}
	for round := 1; round <= rounds; round++ {
		for i, s := range servers {
			if ctx.Err() != nil {
				return rows, profiles
			}
			var prof bytes.Buffer
			profiling := profile && round == rounds && slices.Contains(profiledServers, s.Name) &&
				pprof.StartCPUProfile(&prof) == nil
			r, err := httpbench.Measure(ctx, s, load)
			if profiling {
				pprof.StopCPUProfile()
				profiles[s.Name] = prof.Bytes()
			}
			if err != nil {
				rows[i].RPS = append(rows[i].RPS, 0)
				rows[i].Err = err.Error()
				fmt.Fprintf(log, "http %s round %d: %v\n", s.Name, round, err)
				continue
			}
			rows[i].RPS = append(rows[i].RPS, r.ReqPerSec)
			rows[i].Latency = r.Latency
			fmt.Fprintf(log, "http %s round %d: %.0f req/s\n", s.Name, round, r.ReqPerSec)
		}
	}
	return rows, profiles
}
