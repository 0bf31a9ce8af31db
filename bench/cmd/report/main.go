package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/ratewindow/ratewindow/bench/httpbench"
	"github.com/ratewindow/ratewindow/bench/peers"
)

type options struct {
	dir, out, raw      string
	once               string
	bench, benchtime   string
	count              int
	wrk                string
	threads, conns     int
	httpDur, warmup    time.Duration
	profileDur         time.Duration
	rounds             int
	skipBench          bool
	skipHTTP           bool
	skipAccuracy       bool
	skipProfile        bool
	quick              bool
	timeout            time.Duration
	accuracyLimit      int64
	accuracyWindow     time.Duration
	accuracyRealWindow time.Duration
}

func main() {
	var o options
	flag.StringVar(&o.dir, "dir", "", "the bench module directory (default: . or ./bench, whichever holds it)")
	flag.StringVar(&o.out, "out", "RESULTS.md", "the markdown file to write, relative to -dir")
	flag.StringVar(&o.raw, "raw", "", "also write the raw go test output here, relative to -dir (for benchstat)")
	flag.StringVar(&o.bench, "bench", ".", "go test -bench pattern")
	flag.StringVar(&o.benchtime, "benchtime", "1s", "go test -benchtime")
	flag.IntVar(&o.count, "count", 5, "passes over the benchmarks (each go test -count 1, so the runs of one benchmark are spread over time); medians are taken")
	flag.StringVar(&o.once, "once", "RedisMemoryPerKey|RedisLogMemoryPerUnit", "benchmarks that weigh rather than time, run in one pass only (with the default -bench; empty: none)")
	flag.StringVar(&o.wrk, "wrk", "wrk", "the wrk binary")
	flag.IntVar(&o.threads, "t", 2, "wrk threads")
	flag.IntVar(&o.conns, "c", 64, "wrk connections")
	flag.DurationVar(&o.httpDur, "http-duration", time.Second, "wrk measured run per server and round, in whole seconds")
	flag.DurationVar(&o.warmup, "http-warmup", 2*time.Second, "wrk unmeasured run per server, once, before the first round")
	flag.IntVar(&o.rounds, "http-rounds", 29, "rounds over the HTTP servers, each server run back to back with its bare floor (many short rounds resist a noisy machine better than a few long ones); req/s and ratios are medians")
	flag.DurationVar(&o.profileDur, "http-profile-duration", 4*time.Second, "wrk run, after the rounds, of each HTTP server whose CPU profile the report shows")
	flag.BoolVar(&o.skipBench, "skip-bench", false, "skip the Go benchmarks")
	flag.BoolVar(&o.skipHTTP, "skip-http", false, "skip the HTTP comparison")
	flag.BoolVar(&o.skipAccuracy, "skip-accuracy", false, "skip the accuracy table")
	flag.BoolVar(&o.skipProfile, "skip-profile", false, "skip the CPU profiles (hot keys from many goroutines, and the servers with ratewindow under wrk)")
	flag.BoolVar(&o.quick, "quick", false, "a rough run: -count 1 -benchtime 100ms, one round of 2 s per HTTP server")
	flag.DurationVar(&o.timeout, "timeout", 90*time.Minute, "give up after this long")
	flag.Parse()
	o.accuracyLimit, o.accuracyWindow, o.accuracyRealWindow = 100, 10*time.Second, time.Second
	if o.quick {
		o.count, o.benchtime = 1, "100ms"
		o.httpDur, o.warmup, o.rounds = 2*time.Second, 0, 1
		o.profileDur = 2 * time.Second
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	dir, err := benchDir(o.dir)
	if err != nil {
		return err
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, o.timeout)
	defer cancel()
	log := os.Stderr

	rep := report{Machine: probeMachine(ctx)}
	if o.quick {
		rep.Notes = append(rep.Notes, "A -quick run (one run per benchmark, 100 ms each, one round of 2 s of wrk per server): rough numbers; run scripts/bench without -quick for the published table.")
	}
	if n := busyNote(rep.Machine); n != "" {
		rep.Notes = append(rep.Notes, n)
	}
	if !o.skipBench {
		out, cmds, err := runBenchmarks(ctx, dir, o, log)
		rep.Command, rep.Passes = strings.Join(cmds, "`; `"), max(o.count, 1)
		if err != nil {
			rep.Notes = append(rep.Notes, fmt.Sprintf("go test failed (%v); the tables hold what finished", err))
		}
		if o.raw != "" {
			if werr := os.WriteFile(inDir(dir, o.raw), out, 0o644); werr != nil {
				return fmt.Errorf("write %s: %w", o.raw, werr)
			}
		}
		samples, err := parseBench(bytes.NewReader(out))
		if err != nil {
			return err
		}
		rep.Groups = groups(medians(samples))
		orderGroups(rep.Groups)
		if err := markOneShot(rep.Groups, o.once); err != nil {
			return err
		}
	}
	if !o.skipHTTP {
		if _, err := exec.LookPath(o.wrk); err != nil {
			rep.Notes = append(rep.Notes, fmt.Sprintf("HTTP comparison skipped: %v (install the Debian package wrk)", err))
		} else if err := runHTTPComparison(ctx, dir, o, &rep, log); err != nil {
			return err
		}
	}
	if !o.skipAccuracy {
		fmt.Fprintf(log, "==> accuracy\n")
		for _, p := range peers.Accuracy() {
			r, err := peers.MeasureAccuracy(p, o.accuracyLimit, o.accuracyWindow, o.accuracyRealWindow)
			if err != nil {
				rep.Notes = append(rep.Notes, fmt.Sprintf("accuracy of %s: %v", p.Name, err))
				continue
			}
			fmt.Fprintf(log, "accuracy %s: %d in a rolling window of %v\n", p.Name, r.MaxInWindow, r.Window)
			rep.Accuracy = append(rep.Accuracy, r)
		}
	}
	if !o.skipProfile {
		for _, bench := range profiledBenchmarks {
			fmt.Fprintf(log, "==> profile %s\n", bench)
			prof, err := profileBenchmark(ctx, dir, bench)
			if err != nil {
				rep.Notes = append(rep.Notes, fmt.Sprintf("profile of %s: %v", bench, err))
				continue
			}
			rep.Profiles = append(rep.Profiles, namedProfile{Server: bench, Top: prof})
		}
	}
	rep.Finished, rep.LoadEnd = time.Now().UTC(), loadAverage()

	var buf bytes.Buffer
	writeReport(&buf, rep)
	path := inDir(dir, o.out)
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	fmt.Fprintf(log, "==> wrote %s in %v\n", path, rep.Finished.Sub(rep.Machine.Started).Round(time.Second))
	return nil
}

// runHTTPComparison starts every server of the HTTP comparison once,
// warms each up, measures them in rounds, profiles the profiledServers and
// stops them all. Servers live for the whole comparison, so every run
// meets a warm server: started afresh for each run, the bare server's
// ratio to a copy of itself came out low and twice as spread
// (docs/http-overhead.md).
func runHTTPComparison(ctx context.Context, dir string, o options, rep *report, log io.Writer) (err error) {
	load := httpbench.Load{Wrk: o.wrk, Threads: o.threads, Connections: o.conns, Duration: o.httpDur}
	warmed := "not warmed up"
	if o.warmup > 0 {
		warmed = fmt.Sprintf("warmed up for %v before the first round", o.warmup)
	}
	rep.HTTPLoad = fmt.Sprintf("`wrk -t%d -c%d -d%v`, %d round(s), servers in-process on 127.0.0.1, each started once and %s, each run back to back with its bare floor",
		o.threads, o.conns, o.httpDur, o.rounds, warmed)
	fmt.Fprintf(log, "==> HTTP: %s\n", rep.HTTPLoad)
	servers := append(httpbench.Servers(), httpbench.FieldFloors()...)
	servers = append(servers, httpbench.Control())
	started := map[string]*httpbench.Started{}
	defer func() {
		for _, s := range started {
			if serr := s.Stop(); err == nil {
				err = serr
			}
		}
	}()
	// A server that cannot start, or fails its warm-up, is reported like
	// any failed run, in its row and in the notes; the others go on.
	failed := map[string]error{}
	warm := load
	warm.Duration = o.warmup
	for _, sv := range servers {
		s, err := httpbench.Start(sv)
		if err != nil {
			failed[sv.Name] = err
			continue
		}
		started[sv.Name] = s
		if o.warmup > 0 {
			if _, err := s.Measure(ctx, warm); err != nil {
				failed[sv.Name] = fmt.Errorf("warm-up: %w", err)
			}
		}
	}
	for _, sv := range servers {
		if err := failed[sv.Name]; err != nil {
			fmt.Fprintf(log, "http %s: %v\n", sv.Name, err)
			rep.Notes = append(rep.Notes, fmt.Sprintf("HTTP server %s: %v", sv.Name, err))
		}
	}
	// measure measures a started server with l, or returns why it could
	// not be started.
	measure := func(l httpbench.Load) measureFunc {
		return func(ctx context.Context, s httpbench.Server) (httpbench.Result, error) {
			if err := failed[s.Name]; err != nil {
				return httpbench.Result{}, err
			}
			return started[s.Name].Measure(ctx, l)
		}
	}
	rep.HTTP = runHTTP(ctx, servers, measure(load), o.rounds, log)
	if o.skipProfile {
		return nil
	}
	profLoad := load
	profLoad.Duration = o.profileDur
	profiles := profileHTTP(ctx, servers, profiledServers, measure(profLoad), log)
	for _, name := range profiledServers {
		if len(profiles[name]) == 0 {
			continue
		}
		top, err := pprofTop(ctx, dir, profiles[name], "-cum")
		if err != nil {
			rep.Notes = append(rep.Notes, fmt.Sprintf("HTTP profile of %s: %v", name, err))
			continue
		}
		share, err := ownShare(profiles[name])
		if err != nil {
			rep.Notes = append(rep.Notes, fmt.Sprintf("HTTP profile of %s: %v", name, err))
		}
		rep.HTTPProfiles = append(rep.HTTPProfiles, namedProfile{Server: name, Top: top, Own: share})
	}
	return nil
}

// inDir resolves a relative path against dir.
func inDir(dir, path string) string {
	if filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(dir, path)
}

// benchDir returns dir, or else "." or "./bench", whichever holds the bench
// module's go.mod.
func benchDir(dir string) (string, error) {
	cands := []string{dir}
	if dir == "" {
		cands = []string{".", "bench"}
	}
	for _, d := range cands {
		b, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil && bytes.Contains(b, []byte("module github.com/ratewindow/ratewindow/bench\n")) {
			return filepath.Abs(d)
		}
	}
	return "", fmt.Errorf("no bench module in %s (use -dir)", strings.Join(cands, " or "))
}

// goCommand runs the go command in dir, copying its output to log as it
// comes, and returns the output.
func goCommand(ctx context.Context, dir string, log io.Writer, args ...string) ([]byte, error) {
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Stdout = io.MultiWriter(&out, log)
	cmd.Stderr = log
	err := cmd.Run()
	return out.Bytes(), err
}

// profiledBenchmarks are the benchmarks whose CPU profiles RESULTS.md
// shows: ratewindow's hot key from one goroutine and from 64, the sliding
// log's from 8 and 64, and sethvargo's (the fastest peer on one key) from
// 8 and 64 beside them.
var profiledBenchmarks = []string{
	"BenchmarkMemoryHotKey/ratewindow-sliding",
	"BenchmarkMemoryHotKeyParallel/goroutines-64/ratewindow-sliding",
	"BenchmarkMemoryHotKeyParallel/goroutines-8/ratewindow-log",
	"BenchmarkMemoryHotKeyParallel/goroutines-64/ratewindow-log",
	"BenchmarkMemoryHotKeyParallel/goroutines-8/sethvargo",
	"BenchmarkMemoryHotKeyParallel/goroutines-64/sethvargo",
}

// profileBenchmark runs one benchmark (a path of exact names) under the CPU
// profiler and returns the top of `go tool pprof -top`.
func profileBenchmark(ctx context.Context, dir, bench string) (string, error) {
	tmp, err := os.MkdirTemp("", "ratewindow-profile-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	var pattern []string
	for _, part := range strings.Split(bench, "/") {
		pattern = append(pattern, "^"+regexp.QuoteMeta(part)+"$")
	}
	bin, prof := filepath.Join(tmp, "bench.test"), filepath.Join(tmp, "cpu.out")
	if _, err := goCommand(ctx, dir, io.Discard, "test", "-run", "^$", "-bench", strings.Join(pattern, "/"),
		"-benchtime", "2s", "-count", "1", "-cpuprofile", prof, "-o", bin, "."); err != nil {
		return "", fmt.Errorf("go test -cpuprofile: %w", err)
	}
	out, err := goCommand(ctx, dir, io.Discard, "tool", "pprof", "-top", "-nodecount", "20", bin, prof)
	if err != nil {
		return "", fmt.Errorf("go tool pprof: %w", err)
	}
	return trimProfile(string(out)), nil
}

// pprofTop returns `go tool pprof -top` (with the extra flags) of a CPU
// profile of this process; Go profiles carry their symbols.
func pprofTop(ctx context.Context, dir string, profile []byte, flags ...string) (string, error) {
	f, err := os.CreateTemp("", "ratewindow-http-*.pprof")
	if err != nil {
		return "", err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(profile); err != nil {
		_ = f.Close()
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	args := append([]string{"tool", "pprof", "-top", "-nodecount", "30"}, flags...)
	out, err := goCommand(ctx, dir, io.Discard, append(args, f.Name())...)
	if err != nil {
		return "", fmt.Errorf("go tool pprof: %w", err)
	}
	return trimProfile(string(out)), nil
}

// trimProfile drops pprof's header lines (file, build ID, type, time)
// and keeps the summary and the table.
func trimProfile(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "File:") || strings.HasPrefix(l, "Build ID:") || strings.HasPrefix(l, "Type:") || strings.HasPrefix(l, "Time:") {
			continue
		}
		keep = append(keep, l)
	}
	return strings.TrimSpace(strings.Join(keep, "\n"))
}

// benchPasses returns the go test argument lists: count passes of -count 1
// over the benchmarks, so that a noisy minute hurts one run of each
// benchmark rather than every run of one, and with the default -bench one
// more pass over the -once benchmarks, which the timed passes skip.
func benchPasses(o options) [][]string {
	base := []string{"test", "-run", "^$", "-benchmem", "-count", "1", "-timeout", "60m"}
	timed := append(slices.Clone(base), "-bench", o.bench, "-benchtime", o.benchtime)
	once := o.once != "" && o.bench == "."
	if once {
		timed = append(timed, "-skip", o.once)
	}
	var passes [][]string
	for range max(o.count, 1) {
		passes = append(passes, append(slices.Clone(timed), "."))
	}
	if once {
		passes = append(passes, append(slices.Clone(base), "-bench", o.once, "."))
	}
	return passes
}

// runBenchmarks runs every pass and returns their output, concatenated,
// and the distinct command lines.
func runBenchmarks(ctx context.Context, dir string, o options, log io.Writer) ([]byte, []string, error) {
	var (
		all  bytes.Buffer
		cmds []string
	)
	passes := benchPasses(o)
	for i, args := range passes {
		cmd := "go " + strings.Join(args, " ")
		if !slices.Contains(cmds, cmd) {
			cmds = append(cmds, cmd)
		}
		fmt.Fprintf(log, "==> pass %d of %d: %s\n", i+1, len(passes), cmd)
		out, err := goCommand(ctx, dir, log, args...)
		all.Write(out)
		if err != nil {
			return all.Bytes(), cmds, err
		}
	}
	return all.Bytes(), cmds, nil
}
