package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// storeDir is the Redis store's package, relative to the repository root.
const storeDir = "core/redisstore"

// drivers are the scripts the generator writes to storeDir/scripts.
var drivers = []string{"one.lua", "many.lua", "batch.lua"}

// defaultSkip names the tests that exercise topologies (failovers, stalled
// masters, deadlines, connection setup) rather than what the scripts
// decide; they take most of the package's time.
const defaultSkip = "TestNodeBatchersFollowMasters|TestStalledMaster|TestDomainSlotWithoutMaster|" +
	"TestDeadline|TestStalledQueueFailsInTime|TestClusterDeadlineBeforeSlotMap|TestResetRetriesTryAgain|" +
	"TestClientOptions"

func main() {
	run := flag.String("run", "", "run only the mutants whose names match this regular expression")
	skip := flag.String("skip", defaultSkip, "go test -skip: the tests of "+storeDir+" left out")
	timeout := flag.Duration("timeout", 3*time.Minute, "the longest the tests of one mutant may run")
	list := flag.Bool("list", false, "list the mutants and exit")
	out := flag.String("out", "", "also write the results to this file, as a Markdown table")
	flag.Parse()
	if err := mainErr(*run, *skip, *timeout, *list, *out); err != nil {
		fmt.Fprintln(os.Stderr, "luamutants:", err)
		os.Exit(1)
	}
}

func mainErr(run, skip string, timeout time.Duration, list bool, out string) error {
	re, err := regexp.Compile(run)
	if err != nil {
		return fmt.Errorf("-run: %w", err)
	}
	var selected []mutant
	for _, m := range mutants {
		if re.MatchString(m.Name) {
			selected = append(selected, m)
		}
	}
	if list {
		for _, m := range selected {
			fmt.Printf("%-24s %-18s %s\n", m.Name, m.File, m.What)
		}
		return nil
	}
	if _, err := os.Stat(filepath.Join(storeDir, "scripts")); err != nil {
		return fmt.Errorf("run from the repository root: %w", err)
	}
	if os.Getenv("RATEWINDOW_REDIS_ADDR") == "" {
		return errors.New("no Redis: run through ./scripts/test --exec go run ./tools/luamutants")
	}
	tmp, err := os.MkdirTemp("", "luamutants-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	gen := filepath.Join(tmp, "scriptgen")
	if err := command("go", "build", "-o", gen, "./"+storeDir+"/internal/scriptgen").Run(); err != nil {
		return fmt.Errorf("build the script generator: %w", err)
	}
	r := runner{tmp: tmp, gen: gen, skip: skip, timeout: timeout}

	base := r.test(mutant{Name: "none"})
	fmt.Printf("%-24s %s (%s)\n", "unmutated", map[bool]string{true: "pass", false: "FAIL"}[base.Outcome == outSurvived], base.Took.Round(time.Second))
	if base.Outcome != outSurvived {
		return fmt.Errorf("the tests fail on the unmutated scripts: %s %s", base.Outcome, base.Detail)
	}
	var results []result
	for _, m := range selected {
		res := r.test(m)
		results = append(results, res)
		fmt.Printf("%-24s %-9s %-40s (%s)\n", m.Name, res.Outcome, res.Detail, res.Took.Round(time.Second))
	}
	caught := 0
	for _, res := range results {
		if res.Outcome == outCaught || res.Outcome == outTimeout {
			caught++
		}
	}
	fmt.Printf("%d mutants, %d caught, %d survived\n", len(results), caught, len(results)-caught)
	if out != "" {
		if err := os.WriteFile(out, table(results), 0o644); err != nil {
			return err
		}
	}
	for _, res := range results {
		if res.Outcome == outNotMade {
			return fmt.Errorf("mutant %s: %s", res.Name, res.Detail)
		}
	}
	return nil
}

// The outcomes of one mutant.
const (
	outCaught   = "caught"
	outSurvived = "survived"
	outTimeout  = "timeout"  // caught: the tests did not end in time
	outNotMade  = "not-made" // the mutant could not be made: its text is not in the file
)

type result struct {
	mutant
	Outcome string
	Detail  string // the first failing test, or why the mutant was not made
	Took    time.Duration
}

type runner struct {
	tmp, gen, skip string
	timeout        time.Duration
}

// test makes the scripts of m (the unmutated ones for a mutant with no
// file) and runs the store's tests with them.
func (r runner) test(m mutant) result {
	start := time.Now()
	res := result{mutant: m}
	overlay, err := r.make(m)
	if err != nil {
		res.Outcome, res.Detail = outNotMade, err.Error()
		return res
	}
	ctx, cancel := context.WithTimeout(context.Background(), r.timeout+time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "test", "-overlay", overlay, "-count=1", "-failfast",
		"-timeout", r.timeout.String(), "-skip", r.skip, "./"+storeDir)
	cmd.Env = append(os.Environ(), "CI=true") // a test that cannot reach Redis fails
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	err = cmd.Run()
	res.Took = time.Since(start)
	text := output.String()
	switch {
	case err == nil:
		res.Outcome = outSurvived
	case strings.Contains(text, "panic: test timed out") || ctx.Err() != nil:
		res.Outcome, res.Detail = outTimeout, firstFailure(text)
	default:
		res.Outcome, res.Detail = outCaught, firstFailure(text)
	}
	if m.File != "" {
		_ = os.WriteFile(filepath.Join(r.tmp, m.Name+".log"), output.Bytes(), 0o644)
	}
	return res
}

// make writes the scripts assembled from the sources with m applied to
// a directory of their own and returns the go test -overlay file that
// puts them in place of the checked-in scripts.
func (r runner) make(m mutant) (string, error) {
	dir := filepath.Join(r.tmp, m.Name)
	if err := os.MkdirAll(filepath.Join(dir, "scripts"), 0o755); err != nil {
		return "", err
	}
	sources, err := filepath.Glob(filepath.Join(storeDir, "*.lua"))
	if err != nil {
		return "", err
	}
	found := m.File == ""
	for _, src := range sources {
		b, err := os.ReadFile(src)
		if err != nil {
			return "", err
		}
		if filepath.Base(src) == m.File {
			found = true
			if b, err = m.apply(b); err != nil {
				return "", err
			}
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(src)), b, 0o644); err != nil {
			return "", err
		}
	}
	if !found {
		return "", fmt.Errorf("no source file %s", m.File)
	}
	gen := command(r.gen)
	gen.Dir = dir
	if err := gen.Run(); err != nil {
		return "", fmt.Errorf("generate: %w", err)
	}
	replace := map[string]string{}
	changed := false
	for _, d := range drivers {
		orig, err := filepath.Abs(filepath.Join(storeDir, "scripts", d))
		if err != nil {
			return "", err
		}
		mutated := filepath.Join(dir, "scripts", d)
		a, errA := os.ReadFile(orig)
		b, errB := os.ReadFile(mutated)
		if err := errors.Join(errA, errB); err != nil {
			return "", err
		}
		if m.File == "" && !bytes.Equal(a, b) {
			return "", fmt.Errorf("scripts/%s is stale: run go generate in %s", d, storeDir)
		}
		changed = changed || !bytes.Equal(a, b)
		replace[orig] = mutated
	}
	if m.File != "" && !changed {
		return "", errors.New("the generated scripts do not change")
	}
	b, err := json.Marshal(map[string]any{"Replace": replace})
	if err != nil {
		return "", err
	}
	overlay := filepath.Join(dir, "overlay.json")
	return overlay, os.WriteFile(overlay, b, 0o644)
}

// firstFailure returns the name of the first test the output reports as
// failed, or its last line.
func firstFailure(out string) string {
	for _, line := range strings.Split(out, "\n") {
		if name, ok := strings.CutPrefix(strings.TrimSpace(line), "--- FAIL: "); ok {
			name, _, _ = strings.Cut(name, " ")
			return name
		}
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return lines[len(lines)-1]
}

func command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = io.Discard, os.Stderr
	return cmd
}

// table formats the results as a Markdown table.
func table(results []result) []byte {
	var b bytes.Buffer
	b.WriteString("| mutant | file | change | outcome | first failing test |\n|---|---|---|---|---|\n")
	for _, r := range results {
		detail := r.Detail
		if r.Outcome == outSurvived && r.Equivalent != "" {
			detail = "equivalent: " + r.Equivalent
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", r.Name, r.File, r.What, r.Outcome, detail)
	}
	return b.Bytes()
}
