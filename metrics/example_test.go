package metrics_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/keyfuncs"
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
	// Serve reg with promhttp.HandlerFor(reg, promhttp.HandlerOpts{}).

	limiter, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(2).Named("per-minute")})
	if err != nil {
		panic(err)
	}
	mw, err := nethttp.New(limiter,
		ratewindow.WithKeyFunc(keyfuncs.Header("X-API-Key", nil)),
		ratewindow.WithOnDecision(collector.Observe))
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /items/{id}", mw(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})))

	for _, id := range []string{"1", "2", "3"} {
		req := httptest.NewRequest(http.MethodGet, "/items/"+id, nil)
		req.Header.Set("X-API-Key", "secret-key")
		mux.ServeHTTP(httptest.NewRecorder(), req)
	}

	err = testutil.CollectAndCompare(collector, strings.NewReader(`
# HELP ratewindow_requests_total Requests seen by the rate-limit middleware, by route pattern, binding policy and outcome.
# TYPE ratewindow_requests_total counter
ratewindow_requests_total{outcome="allowed",policy="per-minute",route="/items/{id}"} 2
ratewindow_requests_total{outcome="denied",policy="per-minute",route="/items/{id}"} 1
ratewindow_requests_total{outcome="would_deny",policy="per-minute",route="/items/{id}"} 0
`), "ratewindow_requests_total")
	fmt.Println("requests_total as expected:", err == nil)
	// Output: requests_total as expected: true
}
