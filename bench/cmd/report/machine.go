package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// machine describes where the numbers were measured.
type machine struct {
	CPUs    int    // logical CPUs (nproc)
	CPU     string // model name from /proc/cpuinfo
	Go      string // go version of the toolchain that built the benchmarks
	Redis   string // redis-server version, "" when unknown
	Load    string // /proc/loadavg at the start: others sharing the CPUs show here
	OS      string
	Started time.Time
}

func probeMachine(ctx context.Context) machine {
	m := machine{CPUs: runtime.NumCPU(), OS: runtime.GOOS + "/" + runtime.GOARCH, Started: time.Now().UTC()}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		m.CPU = cpuModel(f)
		_ = f.Close()
	}
	m.Load = loadAverage()
	m.Go = commandLine(ctx, "go", "env", "GOVERSION")
	if m.Go == "" {
		m.Go = runtime.Version()
	}
	server := os.Getenv("RATEWINDOW_REDIS_SERVER")
	if server == "" {
		server = "redis-server"
	}
	m.Redis = redisVersion(commandLine(ctx, server, "--version"))
	return m
}

// cpuModel returns the first "model name" of a /proc/cpuinfo.
func cpuModel(f *os.File) string {
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

var redisVersionRe = regexp.MustCompile(`\bv=(\S+)`)

// redisVersion reads "Redis server v=7.0.15 sha=..." and returns "7.0.15".
func redisVersion(s string) string {
	if m := redisVersionRe.FindStringSubmatch(s); m != nil {
		return m[1]
	}
	return ""
}

// commandLine runs a short command (10 s at most) and returns its first
// line of output, or "" when it fails.
func commandLine(ctx context.Context, name string, args ...string) string {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, name, args...).Output()
	if err != nil {
		return ""
	}
	s, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return s
}

// busyNote warns when the machine was busy at the start (a one-minute load
// average above half its CPUs): the ratios then carry the noise of
// whatever else ran.
func busyNote(m machine) string {
	f := strings.Fields(m.Load)
	if len(f) == 0 || m.CPUs < 1 {
		return ""
	}
	load, err := strconv.ParseFloat(f[0], 64)
	if err != nil || load <= float64(m.CPUs)/2 {
		return ""
	}
	return fmt.Sprintf("The machine was busy when the run started (load average %s on %d CPUs): other work shared the CPUs, so these numbers and ratios are noisy.", f[0], m.CPUs)
}

// loadAverage returns the 1, 5 and 15 minute load averages, or "".
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return ""
}
