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
	// RPS holds the req/s of every run that succeeded: one per round for
	// a server with a floor, one per pair it took part in for a floor.
	RPS []float64
	// Ratios holds, for a server with a floor, its req/s over the floor's
	// in each pair that measured both.
	Ratios  []float64
	Latency string // average latency of the last run
	Err     string // the last error, if a run failed
}

// median returns the median req/s over the runs that succeeded.
func (h httpRow) median() float64 { return median(h.RPS) }

// ratio returns the median over rounds of h's req/s over its floor's, the
// two measured back to back, or 0 when no round measured both.
func (h httpRow) ratio() float64 { return median(h.Ratios) }

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

// measureFunc measures one server under wrk.
type measureFunc func(context.Context, httpbench.Server) (httpbench.Result, error)

// runHTTP measures every server that has a floor against it, rounds times.
// In each round, every such server and its floor run back to back, in an
// order that alternates from round to round, and the round's ratio is the
// pair's: on a shared machine, load that comes and goes over minutes then
// hurts both sides of a ratio alike. Floors are measured in every pair.
func runHTTP(ctx context.Context, servers []httpbench.Server, measure measureFunc, rounds int, log io.Writer) []httpRow {
	rows := make([]httpRow, len(servers))
	index := map[string]int{}
	for i, s := range servers {
		rows[i] = httpRow{Name: s.Name, Floor: s.Floor}
		index[s.Name] = i
	}
	run := func(i, round int) float64 {
		s := servers[i]
		r, err := measure(ctx, s)
		if err != nil {
			rows[i].Err = err.Error()
			fmt.Fprintf(log, "http %s round %d: %v\n", s.Name, round, err)
			return 0
		}
		rows[i].RPS = append(rows[i].RPS, r.ReqPerSec)
		rows[i].Latency = r.Latency
		fmt.Fprintf(log, "http %s round %d: %.0f req/s\n", s.Name, round, r.ReqPerSec)
		return r.ReqPerSec
	}
	for round := 1; round <= rounds; round++ {
		for i, s := range servers {
			f, ok := index[s.Floor]
			if !ok || f == i {
				continue
			}
			if ctx.Err() != nil {
				return rows
			}
			var rps, floor float64
			if round%2 == 1 {
				floor, rps = run(f, round), run(i, round)
			} else {
				rps, floor = run(i, round), run(f, round)
			}
			if rps > 0 && floor > 0 {
				rows[i].Ratios = append(rows[i].Ratios, rps/floor)
			}
		}
	}
	return rows
}

// profileHTTP returns the CPU profile of this process (the in-process
// servers) while measure loads each of the named servers once, outside the
// rounds. A server whose run failed has no profile.
func profileHTTP(ctx context.Context, servers []httpbench.Server, names []string, measure measureFunc, log io.Writer) map[string][]byte {
	profiles := map[string][]byte{}
	for _, s := range servers {
		if !slices.Contains(names, s.Name) || ctx.Err() != nil {
			continue
		}
		var prof bytes.Buffer
		if err := pprof.StartCPUProfile(&prof); err != nil {
			fmt.Fprintf(log, "http profile %s: %v\n", s.Name, err)
			continue
		}
		_, err := measure(ctx, s)
		pprof.StopCPUProfile()
		if err != nil {
			fmt.Fprintf(log, "http profile %s: %v\n", s.Name, err)
			continue
		}
		profiles[s.Name] = prof.Bytes()
	}
	return profiles
}
