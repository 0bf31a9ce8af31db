package main

import (
	"context"
	"fmt"
	"io"
	"runtime/pprof"

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

// profiledServer is the server whose CPU profile under wrk RESULTS.md
// shows: where net/http's time goes with ratewindow in front.
const profiledServer = "nethttp-ratewindow"

// runHTTP measures every server rounds times, the servers interleaved in
// each round so that a noisy neighbour hurts all of them alike. When prof
// is set, the CPU profile of this process (the in-process servers) during
// profiledServer's last round is written to it.
func runHTTP(ctx context.Context, load httpbench.Load, rounds int, prof io.Writer, log io.Writer) []httpRow {
	servers := httpbench.Servers()
	rows := make([]httpRow, len(servers))
	for i, s := range servers {
		rows[i] = httpRow{Name: s.Name, Floor: s.Floor}
	}
	for round := 1; round <= rounds; round++ {
		for i, s := range servers {
			if ctx.Err() != nil {
				return rows
			}
			profiling := prof != nil && round == rounds && s.Name == profiledServer &&
				pprof.StartCPUProfile(prof) == nil
			r, err := httpbench.Measure(ctx, s, load)
			if profiling {
				pprof.StopCPUProfile()
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
	return rows
}
