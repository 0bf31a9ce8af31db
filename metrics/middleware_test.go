package metrics_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/clocktest"
	"github.com/ratewindow/ratewindow/keyfuncs"
	"github.com/ratewindow/ratewindow/metrics"
	"github.com/ratewindow/ratewindow/nethttp"
)

// The keys the scripted traffic uses; none may show up in a label.
var trafficKeys = []string{"client-alpha-key", "203.0.113.9", "client-beta", "client-gamma", "client-delta-key"}

// site is a loopback server whose routes each run their own middleware,
// all reporting to one Collector.
type site struct {
	srv    *httptest.Server
	clock  *clocktest.Clock
	stores map[string]*storeDouble // by route label
}

func newSite(t *testing.T, c *metrics.Collector) *site {
	t.Helper()
	s := &site{clock: clocktest.New(time.Unix(1_700_000_000, 0)), stores: map[string]*storeDouble{}}
	mux := http.NewServeMux()
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	byHeader := ratewindow.WithKeyFunc(keyfuncs.Header("X-Client", nil))

	// limited wraps ok in middleware over its own store double, counted
	// under route.
	limited := func(route string, policies []core.Policy, opts ...ratewindow.Option) http.Handler {
		st := newStoreDouble()
		s.stores[route] = st
		l, err := core.NewLimiter(st, policies, core.WithClock(s.clock))
		require.NoError(t, err)
		mw, err := nethttp.New(l, append([]ratewindow.Option{byHeader, ratewindow.WithOnDecision(c.Observe)}, opts...)...)
		require.NoError(t, err)
		return mw(ok)
	}
	perMinute := func(n int64) []core.Policy { return []core.Policy{core.PerMinute(n).Named("per-minute")} }

	mux.Handle("GET /items/{id}", limited("/items/{id}", perMinute(10)))
	mux.Handle("GET /search", limited("/search", perMinute(2), ratewindow.WithObserveOnly(true)))
	mux.Handle("GET /export", limited("/export", []core.Policy{
		core.PerSecond(5).Named("per-second"),
		core.Per(10, 24*time.Hour).Named("per-day"),
	}))
	mux.Handle("GET /open", limited("/open", perMinute(10)))
	mux.Handle("GET /closed", limited("/closed", perMinute(10), ratewindow.WithFailClosed()))
	mux.Handle("GET /healthz", limited("/healthz", perMinute(10),
		ratewindow.WithSkip(func(keyfuncs.Request) bool { return true })))
	mux.Handle("GET /nokey", limited("/nokey", perMinute(10)))
	s.stores["/open"].down.Store(true)
	s.stores["/closed"].down.Store(true)

	// Mounted outside the mux, so the framework reports no route.
	raw := limited(metrics.UnmatchedRoute, perMinute(10))
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/raw/") {
			raw.ServeHTTP(w, r)
			return
		}
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

// get sends n requests to path with key in X-Client (none if key is "")
// and returns their status codes.
func (s *site) get(t *testing.T, n int, path, key string) []int {
	t.Helper()
	codes := make([]int, n)
	for i := range codes {
		req, err := http.NewRequest(http.MethodGet, s.srv.URL+path, nil)
		require.NoError(t, err)
		if key != "" {
			req.Header.Set("X-Client", key)
		}
		resp, err := s.srv.Client().Do(req)
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		codes[i] = resp.StatusCode
	}
	return codes
}

func repeat(code, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = code
	}
	return out
}

func TestCollectorScrapeAfterTraffic(t *testing.T) {
	c, err := metrics.New()
	require.NoError(t, err)
	s := newSite(t, c)

	// Enforced, 10 per minute: 10 pass, 2 are denied; near the limit
	// (remaining ≤ 1) after the 9th and 10th.
	assert.Equal(t, append(repeat(200, 10), 429, 429), s.get(t, 12, "/items/1", "client-alpha-key"))
	assert.Equal(t, []int{200}, s.get(t, 1, "/items/2", "203.0.113.9"))
	// Observe-only, 2 per minute: all pass, the last two would be denied.
	assert.Equal(t, repeat(200, 4), s.get(t, 4, "/search", "client-beta"))
	// Two policies: per-second binds in the first burst; in the second,
	// per-day has as little left as per-second and the longer wait, so it
	// binds, comes near its limit and denies the last request.
	assert.Equal(t, repeat(200, 5), s.get(t, 5, "/export", "client-gamma"))
	s.clock.Advance(2 * time.Second)
	assert.Equal(t, append(repeat(200, 5), 429), s.get(t, 6, "/export", "client-gamma"))
	// Store down: fail open passes, fail closed answers 503.
	assert.Equal(t, repeat(200, 3), s.get(t, 3, "/open", "client-alpha-key"))
	assert.Equal(t, repeat(503, 2), s.get(t, 2, "/closed", "client-alpha-key"))
	// No route pattern: the raw path must not become a label.
	assert.Equal(t, repeat(200, 2), s.get(t, 2, "/raw/client-delta-key/x", "client-delta-key"))
	// Skipped, and a request with no key (no X-Client, answered 400):
	// neither calls the store.
	assert.Equal(t, []int{200}, s.get(t, 1, "/healthz", "client-alpha-key"))
	assert.Equal(t, []int{400}, s.get(t, 1, "/nokey", ""))

	const want = `
# HELP ratewindow_requests_total Requests seen by the rate-limit middleware, by route pattern, binding policy and outcome.
# TYPE ratewindow_requests_total counter
ratewindow_requests_total{outcome="allowed",policy="per-minute",route="/items/{id}"} 11
ratewindow_requests_total{outcome="denied",policy="per-minute",route="/items/{id}"} 2
ratewindow_requests_total{outcome="would_deny",policy="per-minute",route="/items/{id}"} 0
ratewindow_requests_total{outcome="skipped",policy="none",route="/items/{id}"} 0
ratewindow_requests_total{outcome="store_error_passed",policy="none",route="/items/{id}"} 0
ratewindow_requests_total{outcome="store_error_rejected",policy="none",route="/items/{id}"} 0
ratewindow_requests_total{outcome="unclassified_passed",policy="none",route="/items/{id}"} 0
ratewindow_requests_total{outcome="unclassified_rejected",policy="none",route="/items/{id}"} 0
ratewindow_requests_total{outcome="allowed",policy="per-minute",route="/search"} 2
ratewindow_requests_total{outcome="denied",policy="per-minute",route="/search"} 0
ratewindow_requests_total{outcome="would_deny",policy="per-minute",route="/search"} 2
ratewindow_requests_total{outcome="skipped",policy="none",route="/search"} 0
ratewindow_requests_total{outcome="store_error_passed",policy="none",route="/search"} 0
ratewindow_requests_total{outcome="store_error_rejected",policy="none",route="/search"} 0
ratewindow_requests_total{outcome="unclassified_passed",policy="none",route="/search"} 0
ratewindow_requests_total{outcome="unclassified_rejected",policy="none",route="/search"} 0
ratewindow_requests_total{outcome="allowed",policy="per-second",route="/export"} 5
ratewindow_requests_total{outcome="denied",policy="per-second",route="/export"} 0
ratewindow_requests_total{outcome="would_deny",policy="per-second",route="/export"} 0
ratewindow_requests_total{outcome="allowed",policy="per-day",route="/export"} 5
ratewindow_requests_total{outcome="denied",policy="per-day",route="/export"} 1
ratewindow_requests_total{outcome="would_deny",policy="per-day",route="/export"} 0
ratewindow_requests_total{outcome="skipped",policy="none",route="/export"} 0
ratewindow_requests_total{outcome="store_error_passed",policy="none",route="/export"} 0
ratewindow_requests_total{outcome="store_error_rejected",policy="none",route="/export"} 0
ratewindow_requests_total{outcome="unclassified_passed",policy="none",route="/export"} 0
ratewindow_requests_total{outcome="unclassified_rejected",policy="none",route="/export"} 0
ratewindow_requests_total{outcome="skipped",policy="none",route="/open"} 0
ratewindow_requests_total{outcome="store_error_passed",policy="none",route="/open"} 3
ratewindow_requests_total{outcome="store_error_rejected",policy="none",route="/open"} 0
ratewindow_requests_total{outcome="unclassified_passed",policy="none",route="/open"} 0
ratewindow_requests_total{outcome="unclassified_rejected",policy="none",route="/open"} 0
ratewindow_requests_total{outcome="skipped",policy="none",route="/closed"} 0
ratewindow_requests_total{outcome="store_error_passed",policy="none",route="/closed"} 0
ratewindow_requests_total{outcome="store_error_rejected",policy="none",route="/closed"} 2
ratewindow_requests_total{outcome="unclassified_passed",policy="none",route="/closed"} 0
ratewindow_requests_total{outcome="unclassified_rejected",policy="none",route="/closed"} 0
ratewindow_requests_total{outcome="allowed",policy="per-minute",route="unmatched"} 2
ratewindow_requests_total{outcome="denied",policy="per-minute",route="unmatched"} 0
ratewindow_requests_total{outcome="would_deny",policy="per-minute",route="unmatched"} 0
ratewindow_requests_total{outcome="skipped",policy="none",route="unmatched"} 0
ratewindow_requests_total{outcome="store_error_passed",policy="none",route="unmatched"} 0
ratewindow_requests_total{outcome="store_error_rejected",policy="none",route="unmatched"} 0
ratewindow_requests_total{outcome="unclassified_passed",policy="none",route="unmatched"} 0
ratewindow_requests_total{outcome="unclassified_rejected",policy="none",route="unmatched"} 0
ratewindow_requests_total{outcome="skipped",policy="none",route="/healthz"} 1
ratewindow_requests_total{outcome="store_error_passed",policy="none",route="/healthz"} 0
ratewindow_requests_total{outcome="store_error_rejected",policy="none",route="/healthz"} 0
ratewindow_requests_total{outcome="unclassified_passed",policy="none",route="/healthz"} 0
ratewindow_requests_total{outcome="unclassified_rejected",policy="none",route="/healthz"} 0
ratewindow_requests_total{outcome="skipped",policy="none",route="/nokey"} 0
ratewindow_requests_total{outcome="store_error_passed",policy="none",route="/nokey"} 0
ratewindow_requests_total{outcome="store_error_rejected",policy="none",route="/nokey"} 0
ratewindow_requests_total{outcome="unclassified_passed",policy="none",route="/nokey"} 0
ratewindow_requests_total{outcome="unclassified_rejected",policy="none",route="/nokey"} 1
# HELP ratewindow_near_limit_total Allowed requests that left a policy with at most the near-limit fraction of its limit.
# TYPE ratewindow_near_limit_total counter
ratewindow_near_limit_total{policy="per-minute",route="/items/{id}"} 2
ratewindow_near_limit_total{policy="per-minute",route="/search"} 1
ratewindow_near_limit_total{policy="per-second",route="/export"} 2
ratewindow_near_limit_total{policy="per-day",route="/export"} 2
ratewindow_near_limit_total{policy="per-minute",route="unmatched"} 0
`
	require.NoError(t, testutil.CollectAndCompare(c, strings.NewReader(want),
		"ratewindow_requests_total", "ratewindow_near_limit_total"))

	// One histogram sample per store call, per route.
	counts := histogramCounts(t, c)
	for route, st := range s.stores {
		assert.Equal(t, uint64(st.calls.Load()), counts[route], "store calls on %s", route)
	}
	assert.Zero(t, counts["/healthz"])
	assert.Zero(t, counts["/nokey"])
	assert.Equal(t, uint64(13), counts["/items/{id}"])

	// No label value is, or holds, a key or a raw path.
	for name, mf := range gather(t, c) {
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				assert.NotContains(t, l.GetValue(), "/raw/", "%s %s", name, l.GetName())
				for _, k := range trafficKeys {
					assert.NotContains(t, l.GetValue(), k, "%s %s", name, l.GetName())
				}
			}
		}
	}
}

// The metric names, types and help texts pass Prometheus' own linter.
func TestCollectorLint(t *testing.T) {
	c, err := metrics.New()
	require.NoError(t, err)
	s := newSite(t, c)
	s.get(t, 3, "/items/1", "client-alpha-key")
	s.get(t, 1, "/open", "client-alpha-key")
	problems, err := testutil.CollectAndLint(c)
	require.NoError(t, err)
	assert.Empty(t, problems)
}
