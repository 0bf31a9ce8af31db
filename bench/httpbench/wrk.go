package httpbench

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Load is how wrk drives a server; every server of one comparison gets
// the same Load.
type Load struct {
	// Wrk is the path of the wrk binary; empty means "wrk" on PATH.
	Wrk string
	// Threads and Connections are wrk's -t and -c.
	Threads, Connections int
	// Duration is wrk's -d, the length of a run, in whole seconds (wrk's
	// unit); shorter is raised to one second.
	Duration time.Duration
}

// Result is what one wrk run reports.
type Result struct {
	Requests     int64   // requests completed
	ReqPerSec    float64 // the Requests/sec line
	Non2xx       int64   // "Non-2xx or 3xx responses"
	SocketErrors int64   // connect + read + write + timeout
	Latency      string  // average latency as wrk prints it ("1.23ms")
}

var (
	reqPerSecRe = regexp.MustCompile(`(?m)^Requests/sec:\s+([0-9.]+)\s*$`)
	requestsRe  = regexp.MustCompile(`(?m)^\s*(\d+) requests in `)
	non2xxRe    = regexp.MustCompile(`(?m)^\s*Non-2xx or 3xx responses:\s+(\d+)\s*$`)
	socketRe    = regexp.MustCompile(`(?m)^\s*Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)\s*$`)
	latencyRe   = regexp.MustCompile(`(?m)^\s*Latency\s+(\S+)`)
)

// ParseWrk reads wrk's standard report. It fails when the Requests/sec or
// the request count line is missing.
func ParseWrk(out string) (Result, error) {
	var r Result
	m := reqPerSecRe.FindStringSubmatch(out)
	if m == nil {
		return r, errors.New("httpbench: wrk output has no Requests/sec line")
	}
	var err error
	if r.ReqPerSec, err = strconv.ParseFloat(m[1], 64); err != nil {
		return r, fmt.Errorf("httpbench: wrk Requests/sec: %w", err)
	}
	m = requestsRe.FindStringSubmatch(out)
	if m == nil {
		return r, errors.New("httpbench: wrk output has no request count")
	}
	if r.Requests, err = strconv.ParseInt(m[1], 10, 64); err != nil {
		return r, fmt.Errorf("httpbench: wrk request count: %w", err)
	}
	if m = non2xxRe.FindStringSubmatch(out); m != nil {
		r.Non2xx, _ = strconv.ParseInt(m[1], 10, 64)
	}
	if m = socketRe.FindStringSubmatch(out); m != nil {
		for _, s := range m[1:] {
			n, _ := strconv.ParseInt(s, 10, 64)
			r.SocketErrors += n
		}
	}
	if m = latencyRe.FindStringSubmatch(out); m != nil {
		r.Latency = m[1]
	}
	return r, nil
}

// Args returns wrk's arguments for a run of d against url.
func (l Load) Args(d time.Duration, url string) []string {
	return []string{
		"-t" + strconv.Itoa(max(l.Threads, 1)),
		"-c" + strconv.Itoa(max(l.Connections, 1)),
		"-d" + strconv.FormatInt(max(int64(d/time.Second), 1), 10) + "s",
		url,
	}
}

// run runs wrk once for d against url and parses its report. wrk is
// killed if it outlives d by more than 30 seconds.
func (l Load) run(ctx context.Context, d time.Duration, url string) (Result, string, error) {
	bin := l.Wrk
	if bin == "" {
		bin = "wrk"
	}
	ctx, cancel := context.WithTimeout(ctx, d+30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, l.Args(d, url)...).CombinedOutput()
	if err != nil {
		return Result{}, string(out), fmt.Errorf("httpbench: %s: %w: %s", bin, err, firstLine(out))
	}
	r, err := ParseWrk(string(out))
	return r, string(out), err
}

func firstLine(b []byte) string {
	s, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	return s
}

// Started is a server of the comparison serving on a loopback port, so
// that it can be measured many times without starting it again.
type Started struct {
	Name string
	URL  string // "http://127.0.0.1:port/"
	stop func() error
}

// Start starts s on a fresh loopback port.
func Start(s Server) (*Started, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("httpbench: listen: %w", err)
	}
	stop, err := s.Start(ln)
	if err != nil {
		_ = ln.Close()
		return nil, fmt.Errorf("httpbench: start %s: %w", s.Name, err)
	}
	return &Started{Name: s.Name, URL: "http://" + ln.Addr().String() + "/", stop: stop}, nil
}

// Stop stops the server.
func (s *Started) Stop() error {
	if err := s.stop(); err != nil {
		return fmt.Errorf("httpbench: stop %s: %w", s.Name, err)
	}
	return nil
}

// Measure runs wrk once against the server with l. It fails when wrk saw
// any non-2xx answer or socket error: a limiter that denied or dropped
// requests must not look fast.
func (s *Started) Measure(ctx context.Context, l Load) (Result, error) {
	r, _, err := l.run(ctx, l.Duration, s.URL)
	if err == nil && (r.Non2xx > 0 || r.SocketErrors > 0) {
		err = fmt.Errorf("wrk saw %d non-2xx responses and %d socket errors", r.Non2xx, r.SocketErrors)
	}
	if err != nil {
		return r, fmt.Errorf("httpbench: %s: %w", s.Name, err)
	}
	return r, nil
}
