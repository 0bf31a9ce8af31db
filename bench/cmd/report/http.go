package main

import (
	"context"
	"fmt"
	"io"

	"github.com/ratewindow/ratewindow/bench/httpbench"
)

// httpRow is one server of the HTTP comparison over all rounds.
type httpRow struct {
	Name, Floor string
	RPS         []float64 // one per round
	Latency     string    // average latency of the last round
	Err         string    // the last error, if a round failed
}

func (h httpRow) median() float64 { return median(h.RPS) }

func findHTTP(rows []httpRow, name string) (httpRow, bool) {
	for _, r := range rows {
		if r.Name == name && name != "" {
			return r, true
		}
	}
	return httpRow{}, false
}

// runHTTP measures every server rounds times, the servers interleaved in
// each round so that a noisy neighbour hurts all of them alike.
func runHTTP(ctx context.Context, load httpbench.Load, rounds int, log io.Writer) []httpRow {
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
			r, err := httpbench.Measure(ctx, s, load)
			if err != nil {
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
