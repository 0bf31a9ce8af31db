package main

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/internal/clocktest"
)

// epoch is the instant the simulated runs start: a whole hour, so windows
// (epoch aligned in core) start at multiples of W from it.
var epoch = time.Unix(1_800_000_000, 0).UTC()

// outcome is what one algorithm did with one workload.
type outcome struct {
	Alg     core.Algorithm
	Allowed []bool    // Allowed[i] is the decision on the workload's Reqs[i]
	ByKey   [][]int64 // ByKey[c] holds the instants admitted for client c

	// Over counts admissions that left their client with more than L
	// admitted in (t − W, t]: the algorithm's own history judged by the
	// exact rule.
	Over int
}

// admitted returns how many requests were allowed.
func (o *outcome) admitted() int {
	n := 0
	for _, ok := range o.Allowed {
		if ok {
			n++
		}
	}
	return n
}

// maxIn returns the largest number of requests one client had admitted in
// any rolling interval of length w.
func (o *outcome) maxIn(w int64) int {
	most := 0
	for _, ts := range o.ByKey {
		n, _ := maxInWindow(ts, w)
		most = max(most, n)
	}
	return most
}

// simulate replays w, in order, against a fresh limiter enforcing p on the
// in-memory store, on a fake clock set to each request's instant.
func simulate(w *workload, p core.Policy) (*outcome, error) {
	clock := clocktest.New(epoch)
	lim, err := core.NewLimiter(memory.New(), []core.Policy{p}, core.WithClock(clock))
	if err != nil {
		return nil, fmt.Errorf("simulate: %s: %w", p.Algorithm, err)
	}
	keys := make([]string, w.Clients)
	for c := range keys {
		keys[c] = "client-" + strconv.Itoa(c)
	}
	o := &outcome{Alg: p.Algorithm, Allowed: make([]bool, len(w.Reqs)), ByKey: make([][]int64, w.Clients)}
	ctx := context.Background()
	win := p.Window.Milliseconds()
	first := make([]int, w.Clients) // per client, the oldest admission still in (t − W, t]
	for i, r := range w.Reqs {
		clock.Set(epoch.Add(time.Duration(r.at) * time.Millisecond))
		d, err := lim.Allow(ctx, keys[r.client])
		if err != nil {
			return nil, fmt.Errorf("simulate: %s: %s: request %d: %w", p.Algorithm, w.Name, i, err)
		}
		ts := o.ByKey[r.client]
		for first[r.client] < len(ts) && ts[first[r.client]] <= r.at-win {
			first[r.client]++
		}
		held := int64(len(ts) - first[r.client])
		if d.Allowed {
			o.Allowed[i] = true
			o.ByKey[r.client] = append(ts, r.at)
			if held+1 > p.Limit {
				o.Over++
			}
		}
	}
	return o, nil
}

// run is one workload replayed against every algorithm.
type run struct {
	W    *workload
	Outs [len(algorithms)]*outcome
}

// runAll replays every workload of s against every algorithm.
func runAll(s setup) ([]run, error) {
	if err := s.validate(); err != nil {
		return nil, err
	}
	var runs []run
	for _, w := range workloads(s) {
		r := run{W: w}
		for i, alg := range algorithms {
			o, err := simulate(w, s.policy(alg))
			if err != nil {
				return nil, err
			}
			r.Outs[i] = o
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// disagreement counts the requests algorithm i decided differently from the
// exact reference: allowed where the log denied (wrongly allowed) and
// denied where the log allowed (wrongly denied).
func (r *run) disagreement(i int) (wronglyAllowed, wronglyDenied int) {
	ref := r.Outs[reference].Allowed
	for k, ok := range r.Outs[i].Allowed {
		switch {
		case ok && !ref[k]:
			wronglyAllowed++
		case !ok && ref[k]:
			wronglyDenied++
		}
	}
	return wronglyAllowed, wronglyDenied
}
