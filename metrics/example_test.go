package metrics_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/common/expfmt"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/core/resilient"
	"github.com/ratewindow/ratewindow/metrics"
	"github.com/ratewindow/ratewindow/nethttp"
)

// Count what the middleware decides, per route pattern, and serve it for
// Prometheus to scrape.
func Example() {
	collector, err := metrics.New()
	if err != nil {
		panic(err)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collector)
	scrape := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	defer scrape.Close()

	limiter, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(2).Named("per-minute")})
	if err != nil {
		panic(err)
	}
	mw, err := nethttp.New(limiter, ratewindow.WithOnDecision(collector.Observe)) // keyed by client address
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /items/{id}", mw(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})))

	// Three requests from one client on three URLs of one route.
	for _, id := range []string{"1", "2", "3"} {
		req := httptest.NewRequest(http.MethodGet, "/items/"+id, nil)
		mux.ServeHTTP(httptest.NewRecorder(), req)
	}

	resp, err := http.Get(scrape.URL)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	lines := bufio.NewScanner(resp.Body)
	for lines.Scan() {
		if strings.HasPrefix(lines.Text(), "ratewindow_requests_total") {
			fmt.Println(lines.Text())
		}
	}
	// Output:
	// ratewindow_requests_total{outcome="allowed",policy="per-minute",route="/items/{id}"} 2
	// ratewindow_requests_total{outcome="denied",policy="per-minute",route="/items/{id}"} 1
	// ratewindow_requests_total{outcome="skipped",policy="none",route="/items/{id}"} 0
	// ratewindow_requests_total{outcome="store_error_passed",policy="none",route="/items/{id}"} 0
	// ratewindow_requests_total{outcome="store_error_rejected",policy="none",route="/items/{id}"} 0
	// ratewindow_requests_total{outcome="unclassified_passed",policy="none",route="/items/{id}"} 0
	// ratewindow_requests_total{outcome="unclassified_rejected",policy="none",route="/items/{id}"} 0
	// ratewindow_requests_total{outcome="would_deny",policy="per-minute",route="/items/{id}"} 0
}

// down is a store that always fails, like an unreachable Redis.
type down struct{}

var errUnreachable = errors.New("dial tcp 127.0.0.1:6379: connection refused")

func (down) Take(context.Context, string, []core.Policy, int64, time.Time) (core.Result, error) {
	return core.Result{}, errUnreachable
}

func (down) Peek(context.Context, string, []core.Policy, int64, time.Time) (core.Result, error) {
	return core.Result{}, errUnreachable
}

func (down) Reset(context.Context, string, []core.Policy) error { return errUnreachable }

// Follow a circuit breaker in front of the store: here the store is down,
// and the first failure opens the breaker (state 2).
func ExampleCollector_BreakerStateChanged() {
	collector, err := metrics.New()
	if err != nil {
		panic(err)
	}
	store, err := resilient.New(down{},
		resilient.WithFailureThreshold(1),
		resilient.WithOnStateChange(collector.BreakerStateChanged))
	if err != nil {
		panic(err)
	}
	limiter, err := core.NewLimiter(store, []core.Policy{core.PerMinute(10)})
	if err != nil {
		panic(err)
	}

	_, err = limiter.Allow(context.Background(), "client")
	fmt.Println("error:", err != nil)

	text, err := testutil.CollectAndFormat(collector, expfmt.TypeTextPlain, "ratewindow_circuit_breaker_state")
	if err != nil {
		panic(err)
	}
	for line := range strings.Lines(string(text)) {
		if !strings.HasPrefix(line, "#") {
			fmt.Print(line)
		}
	}
	// Output:
	// error: true
	// ratewindow_circuit_breaker_state 2
}
