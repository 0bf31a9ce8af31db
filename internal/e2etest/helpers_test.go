package e2etest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/keyfuncs"
	"github.com/ratewindow/ratewindow/nethttp"
)

// quiet drops go-redis's log lines: these tests make Redis fail on
// purpose, and every failed dial would be logged.
type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

func TestMain(m *testing.M) {
	redis.SetLogger(quiet{})
	os.Exit(m.Run())
}

// clientHeader carries the rate-limit key of a test request.
const clientHeader = "X-Client"

// server is a real HTTP server on loopback in front of a handler that
// answers 200, and a client for it.
type server struct {
	srv    *httptest.Server
	client *http.Client
}

// serve starts h on loopback and stops it in t.Cleanup.
func serve(t testing.TB, h http.Handler) *server {
	t.Helper()
	srv := httptest.NewServer(h)
	tr := &http.Transport{MaxIdleConnsPerHost: 16}
	s := &server{srv: srv, client: &http.Client{Transport: tr, Timeout: 10 * time.Second}}
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		srv.Close()
	})
	return s
}

// netHTTP starts the net/http middleware over l, keyed by the X-Client
// header, on route /api/. opts come after the key option.
func netHTTP(t testing.TB, l *core.Limiter, opts ...ratewindow.Option) *server {
	t.Helper()
	opts = append([]ratewindow.Option{ratewindow.WithKeyFunc(keyfuncs.Header(clientHeader, nil))}, opts...)
	mw, err := nethttp.New(l, opts...)
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.Handle("/api/", mw(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })))
	return serve(t, mux)
}

// get sends GET path for client and returns the response (its body read
// and closed) and how long it took. A transport error fails the test.
func (s *server) get(t testing.TB, path, client string) (*http.Response, time.Duration) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, s.srv.URL+path, nil)
	require.NoError(t, err)
	req.Header.Set(clientHeader, client)
	start := time.Now()
	resp, err := s.client.Do(req)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp, time.Since(start)
}

// logs is a slog.Logger writing JSON records to memory.
type logs struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logs) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// logger returns a logger that writes to l, every level.
func (l *logs) logger() *slog.Logger {
	return slog.New(slog.NewJSONHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// records returns the records written so far, decoded.
func (l *logs) records(t testing.TB) []map[string]any {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for line := range strings.SplitSeq(strings.TrimSpace(l.buf.String()), "\n") {
		if line == "" {
			continue
		}
		var r map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &r), line)
		out = append(out, r)
	}
	return out
}

// withMsg returns the records whose message contains part.
func withMsg(recs []map[string]any, part string) []map[string]any {
	var out []map[string]any
	for _, r := range recs {
		if m, _ := r["msg"].(string); strings.Contains(m, part) {
			out = append(out, r)
		}
	}
	return out
}

// gather returns the values of the Collector's series as
// "name{label=value,...}" (labels sorted by name) → value; histograms
// give their sample count.
func gather(t testing.TB, c prometheus.Collector) map[string]float64 {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	require.NoError(t, reg.Register(c))
	families, err := reg.Gather()
	require.NoError(t, err)
	out := map[string]float64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			out[f.GetName()+labels(m)] = value(m)
		}
	}
	return out
}

func labels(m *dto.Metric) string {
	var parts []string
	for _, p := range m.GetLabel() {
		parts = append(parts, p.GetName()+"="+p.GetValue())
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func value(m *dto.Metric) float64 {
	switch {
	case m.Counter != nil:
		return m.Counter.GetValue()
	case m.Gauge != nil:
		return m.Gauge.GetValue()
	case m.Histogram != nil:
		return float64(m.Histogram.GetSampleCount())
	}
	return 0
}

// sum adds the values of the series of metric name whose labels contain
// every part of parts ("outcome=allowed").
func sum(series map[string]float64, name string, parts ...string) float64 {
	var total float64
next:
	for s, v := range series {
		if !strings.HasPrefix(s, name+"{") {
			continue
		}
		for _, p := range parts {
			if !strings.Contains(s, p) {
				continue next
			}
		}
		total += v
	}
	return total
}

// pid returns the process id of the redis-server rdb talks to.
func pid(t testing.TB, rdb *redis.Client) int {
	t.Helper()
	info, err := rdb.Info(context.Background(), "server").Result()
	require.NoError(t, err)
	for line := range strings.SplitSeq(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, "process_id:"); ok {
			n, err := strconv.Atoi(v)
			require.NoError(t, err)
			return n
		}
	}
	t.Fatal("e2etest: INFO server names no process_id")
	return 0
}

// freeze stops the process pid (SIGSTOP: it accepts connections and
// answers nothing) and returns the function that lets it go on; that is
// also called in t.Cleanup.
func freeze(t testing.TB, pid int) (thaw func()) {
	t.Helper()
	p, err := os.FindProcess(pid)
	require.NoError(t, err)
	require.NoError(t, p.Signal(syscall.SIGSTOP))
	var once sync.Once
	thaw = func() { once.Do(func() { _ = p.Signal(syscall.SIGCONT) }) }
	t.Cleanup(thaw)
	return thaw
}
