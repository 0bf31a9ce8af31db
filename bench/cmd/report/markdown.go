package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/ratewindow/ratewindow/bench/peers"
)

// report is everything RESULTS.md shows.
type report struct {
	Machine  machine
	Finished time.Time
	LoadEnd  string // load averages when the run ended
	Command  string // the go test command lines
	Passes   int    // timed passes over the benchmarks
	Groups   []group
	HTTPLoad string // wrk settings
	HTTP     []httpRow
	Accuracy []peers.AccuracyResult
	// Profiles are go tool pprof -top of profiledBenchmarks, by benchmark.
	Profiles []namedProfile
	// HTTPProfiles are go tool pprof -top -cum of the in-process servers
	// while wrk loaded each of profiledServers, after the rounds.
	HTTPProfiles []namedProfile
	Notes        []string
}

// namedProfile is the pprof top of one benchmark, or of one server under
// wrk with the share of the process's CPU time ratewindow's own code took
// (see ownShare; 0 when unknown).
type namedProfile struct {
	Server, Top string
	Own         float64
}

// fixedUnits are the columns every benchmark table has; other units a
// benchmark reports (B/key, B/stamp, ...) get a column of their own.
var fixedUnits = []string{"ns/op", "decisions/s", "allocs/op", "B/op"}

func writeReport(w io.Writer, rep report) {
	m := rep.Machine
	fmt.Fprintf(w, "# ratewindow performance: side by side with its peers\n\n")
	fmt.Fprintf(w, "Written by `scripts/bench` (bench/cmd/report) on %s.\n\n", m.Started.Format("2006-01-02 15:04 UTC"))
	table(w, []string{"machine", ""}, [][]string{
		{"CPU", fmt.Sprintf("%s, %d logical CPUs", orUnknown(m.CPU), m.CPUs)},
		{"OS", m.OS},
		{"Go", m.Go},
		{"Redis", orUnknown(m.Redis)},
		{"load average at start / end", orUnknown(m.Load) + " / " + orUnknown(rep.LoadEnd)},
		{"run time", rep.Finished.Sub(m.Started).Round(time.Second).String()},
	})
	fmt.Fprintf(w, "Everything below was measured in this one run, ratewindow and its peers side by side on the same machine; "+
		"ratios compare rows of one table, never runs.\n\n")
	if rep.Command != "" {
		writeBenchIntro(w, rep)
	}
	writeSummary(w, rep)
	for _, g := range rep.Groups {
		writeGroup(w, g)
	}
	if len(rep.HTTP) > 0 {
		writeHTTP(w, rep.HTTPLoad, rep.HTTP)
	}
	if len(rep.Accuracy) > 0 {
		writeAccuracy(w, rep.Accuracy)
	}
	for _, p := range rep.Profiles {
		fmt.Fprintf(w, "## Where the time of %s goes\n\n"+
			"CPU profile of `%s` (`go tool pprof -top`):\n\n```\n%s\n```\n\n",
			strings.TrimPrefix(p.Server, "Benchmark"), p.Server, strings.TrimSpace(p.Top))
	}
	for _, p := range rep.HTTPProfiles {
		fmt.Fprintf(w, "## Where the time of %s goes under wrk\n\n"+
			"CPU profile of the report's process (the servers run in it) while wrk loaded `%s` in a run of its own after the rounds, "+
			"by cumulative time (`go tool pprof -top -cum`).",
			p.Server, p.Server)
		if p.Own > 0 {
			fmt.Fprintf(w, " ratewindow's own code, the middleware and the runtime work it calls but not the handler it wraps, "+
				"took %.1f %% of the process's CPU time; the framework's writing of the fields it sets is not in that share "+
				"(the bare server that sets the same fields itself measures it).", 100*p.Own)
		}
		fmt.Fprintf(w, "\n\n```\n%s\n```\n\n", strings.TrimSpace(p.Top))
	}
	if len(rep.Notes) > 0 {
		fmt.Fprintf(w, "## Notes\n\n")
		for _, n := range rep.Notes {
			fmt.Fprintf(w, "- %s\n", n)
		}
		fmt.Fprintln(w)
	}
}

// writeBenchIntro says how the Go benchmarks ran and what their columns
// mean.
func writeBenchIntro(w io.Writer, rep report) {
	fmt.Fprintf(w, "Go benchmarks: `%s`; medians over %d timed pass(es). "+
		"\"vs fastest peer\" is the fastest peer's ns/op over the row's: 2.00× means twice as fast; "+
		"\"vs redis_rate\" and \"vs floor\" compare with redis_rate and with the bare floor of the same table the same way. "+
		"decisions/s is the row's own figure or 1e9 / ns/op (for concurrent benchmarks, the whole process). "+
		"cpu-ns/op is the CPU time this process used per decision (all goroutines): unlike ns/op it does not grow while the benchmark waits for a CPU that other work holds. "+
		"redis-cpu-us/op is the CPU time redis-server used per decision (INFO cpu, used_cpu_sys + used_cpu_user, summed over the cluster's masters); "+
		"p50-us and p99-us are the median and 99th percentile latency of one decision. "+
		"One key from many goroutines is bimodal on a VM: a pass runs in a fast or a slow mode, up to 2× apart, for every limiter alike, "+
		"as the host places the two virtual CPUs, so a median of few passes depends on how many fell in each mode; "+
		"those tables add fastest-ns/op, the fastest pass, and compare it with the fastest peer's fastest pass.\n\n", rep.Command, rep.Passes)
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// redisRate is the row of go-redis/redis_rate, the Redis limiter Go users
// reach for first; Redis tables compare with it.
const redisRate = "redis_rate"

// otherAlgorithms names the algorithms of the Redis benchmarks' rows that
// package peers does not know.
var otherAlgorithms = map[string]string{
	"redis_rate":                 "GCRA",
	"incr-expire":                "floor: INCR+PEXPIRE pipeline",
	"httprate-redis":             "sliding window counter",
	"ratewindow-nethttp-fixed":   "fixed window",
	"ratewindow-nethttp-sliding": "sliding window counter",
	"ratewindow-nethttp-log":     "sliding log",
}

// algorithmOf names the algorithm of a row, or "".
func algorithmOf(name string) string {
	if a, ok := otherAlgorithms[name]; ok {
		return a
	}
	if c, ok := strings.CutPrefix(name, "ratewindow-log-cost-"); ok {
		return "sliding log, cost " + c
	}
	if p, err := peers.Find(name); err == nil {
		return p.Algorithm
	}
	return ""
}

func writeGroup(w io.Writer, g group) {
	fmt.Fprintf(w, "## %s\n\n", g.Name)
	if d := describe(g.Name); d != "" {
		fmt.Fprintf(w, "%s\n\n", d)
	}
	var extra []string
	for _, r := range g.Rows {
		for u := range r.Metrics {
			if !slices.Contains(fixedUnits, u) && !slices.Contains(extra, u) {
				extra = append(extra, u)
			}
		}
	}
	slices.Sort(extra)
	fastest, hasPeer := g.fastestPeer()
	fl, hasFloor := g.floorRow()
	rr, hasRR := g.find(redisRate)
	timed := !g.OneShot
	hasPeer, hasFloor, hasRR = hasPeer && timed, hasFloor && timed, hasRR && timed

	header := []string{"limiter", "algorithm"}
	if timed {
		header = append(header, "ns/op", "decisions/s")
	}
	header = append(header, "allocs/op", "B/op")
	header = append(header, extra...)
	fastestRun, hasFastest := g.bestOn(peer, fastestUnit)
	hasFastest = hasFastest && timed
	if hasPeer {
		header = append(header, "vs fastest peer")
	}
	if hasFastest {
		header = append(header, "fastest pass vs fastest peer's")
	}
	if hasRR {
		header = append(header, "vs "+redisRate)
	}
	if hasFloor {
		header = append(header, "vs floor")
	}
	var rows [][]string
	for _, r := range g.Rows {
		name := r.Name
		if name == "" {
			name = g.Name
		}
		if kindOf(r.Name) == ours {
			name = "**" + name + "**"
		}
		cells := []string{name, algorithmOf(r.Name)}
		if timed {
			cells = append(cells, fmtNs(r.Metrics["ns/op"]), fmtRate(r.decisionsPerSec()))
		}
		cells = append(cells, metric(r, "allocs/op"), metric(r, "B/op"))
		for _, u := range extra {
			cells = append(cells, metric(r, u))
		}
		if hasPeer {
			cells = append(cells, fmtRatio(speedup(r, fastest)))
		}
		if hasFastest {
			cells = append(cells, fmtRatio(speedupOn(r, fastestRun, fastestUnit)))
		}
		if hasRR {
			cells = append(cells, fmtRatio(speedup(r, rr)))
		}
		if hasFloor {
			cells = append(cells, fmtRatio(speedup(r, fl)))
		}
		rows = append(rows, cells)
	}
	table(w, header, rows)
}

func metric(r row, unit string) string {
	v, ok := r.Metrics[unit]
	if !ok {
		return "–"
	}
	if strings.HasSuffix(unit, "/s") {
		return fmtRate(v)
	}
	return fmtNum(v)
}

func writeHTTP(w io.Writer, load string, rows []httpRow) {
	fmt.Fprintf(w, "## HTTP (wrk on loopback)\n\n%s. req/s is the median over runs; \"vs bare\" is the median over rounds of the row's req/s over that of the bare server of the same framework and handler, the two run back to back (in alternating order); runs counts the measured runs (a bare server runs once with each row it is compared with); \"lowest–highest\" is the range of the rounds' ratios, the spread one run of this machine has. nethttp-bare-again is the bare server compared with itself: how far from 1.00× the machine alone moves a ratio.\n\n", load)
	var out [][]string
	for _, r := range rows {
		ratio, spread := "–", "–"
		if r.Floor != "" {
			ratio = fmtRatio(r.ratio())
		}
		if len(r.Ratios) > 1 {
			spread = fmtRatio(slices.Min(r.Ratios)) + "–" + fmtRatio(slices.Max(r.Ratios))
		}
		name := r.Name
		if strings.Contains(name, "ratewindow") {
			name = "**" + name + "**"
		}
		note := ""
		if r.Err != "" {
			note = r.Err
		}
		out = append(out, []string{name, fmtRate(r.median()), fmt.Sprint(len(r.RPS)), orUnknown(r.Latency), ratio, spread, note})
	}
	table(w, []string{"server", "req/s", "runs", "avg latency", "vs bare", "lowest–highest", "error"}, out)
}

func writeAccuracy(w io.Writer, rs []peers.AccuracyResult) {
	fmt.Fprintf(w, "## Accuracy: a client bursting at a window boundary\n\n"+
		"One request at t0, nothing until just before t0 + W, then as many requests as admitted every W/100 until t0 + 3W. "+
		"\"max in a rolling window\" is the most admitted in any interval [t, t+W). "+
		"Peers that accept a clock run on a fake one (L = 100 per 10 s); the others run in real time on a short window. "+
		"httprate is driven through its in-memory LimitCounter exactly as its middleware drives it, Fiber's limiter through app.Test (see bench/peers).\n\n")
	var out [][]string
	for _, r := range rs {
		clock := "fake"
		if r.RealTime {
			clock = "real"
		}
		name := r.Peer
		if strings.HasPrefix(name, "ratewindow") {
			name = "**" + name + "**"
		}
		out = append(out, []string{name, r.Algorithm, clock, fmt.Sprintf("%d per %v", r.Limit, r.Window),
			fmt.Sprint(r.MaxInWindow), fmtRatio(float64(r.MaxInWindow) / float64(r.Limit))})
	}
	table(w, []string{"limiter", "algorithm", "clock", "limit", "max in a rolling window", "× L"}, out)
}
