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
	"github.com/ratewindow/ratewindow/core/resilient"
	"github.com/ratewindow/ratewindow/internal/clocktest"
	"github.com/ratewindow/ratewindow/keyfuncs"
	"github.com/ratewindow/ratewindow/metrics"
	"github.com/ratewindow/ratewindow/nethttp"
)

// fallbackReplicas is the replicas of the outage sites' fallback: a
// limit of 100 a minute is a local share of 10.
const fallbackReplicas = 10

// outageSite is a loopback server whose store is down behind
// core/resilient's local fallback: /e enforces 100 a minute, /o observes
// the same limit, each over its own resilient Store, both reporting to c.
func outageSite(t *testing.T, c *metrics.Collector) *site {
	t.Helper()
	s := &site{clock: clocktest.New(time.Unix(1_700_000_000, 0)), stores: map[string]*storeDouble{}}
	mux := http.NewServeMux()
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	for _, r := range []struct {
		route   string
		observe bool
	}{{"/e", false}, {"/o", true}} {
		primary := newStoreDouble()
		primary.down.Store(true)
		s.stores[r.route] = primary
		store, err := resilient.New(primary, resilient.WithFallback(fallbackReplicas))
		require.NoError(t, err)
		l, err := core.NewLimiter(store, []core.Policy{core.PerMinute(100).Named("per-minute")}, core.WithClock(s.clock))
		require.NoError(t, err)
		mw, err := nethttp.New(l, ratewindow.WithKeyFunc(keyfuncs.Header("X-Client", nil)),
			ratewindow.WithObserveOnly(r.observe), ratewindow.WithOnDecision(c.Observe))
		require.NoError(t, err)
		mux.Handle("GET "+r.route, mw(ok))
	}
	s.srv = httptest.NewServer(mux)
	t.Cleanup(s.srv.Close)
	return s
}

// During an outage behind the fallback, every decision is counted under
// its outcome in fallback_decisions_total as in requests_total, so the
// fallback's would-denies (made on the instance's share of the limit)
// can be told from the store's.
func TestFallbackDecisionsByOutcomeBehindMiddleware(t *testing.T) {
	c, err := metrics.New()
	require.NoError(t, err)
	s := outageSite(t, c)
	assert.Equal(t, append(repeat(200, 10), 429, 429), s.get(t, 12, "/e", "client-alpha-key"))
	assert.Equal(t, repeat(200, 12), s.get(t, 12, "/o", "client-alpha-key"))

	const want = `
# HELP ratewindow_fallback_decisions_total Decisions made by core/resilient's local fallback while the store failed, by route pattern and outcome.
# TYPE ratewindow_fallback_decisions_total counter
ratewindow_fallback_decisions_total{outcome="allowed",route="/e"} 10
ratewindow_fallback_decisions_total{outcome="denied",route="/e"} 2
ratewindow_fallback_decisions_total{outcome="would_deny",route="/e"} 0
ratewindow_fallback_decisions_total{outcome="allowed",route="/o"} 10
ratewindow_fallback_decisions_total{outcome="denied",route="/o"} 0
ratewindow_fallback_decisions_total{outcome="would_deny",route="/o"} 2
`
	require.NoError(t, testutil.CollectAndCompare(c, strings.NewReader(want), "ratewindow_fallback_decisions_total"))
	assert.Equal(t, 10.0, requests(t, c, "/e", "per-minute", "allowed"))
	assert.Equal(t, 2.0, requests(t, c, "/e", "per-minute", "denied"))
	assert.Equal(t, 10.0, requests(t, c, "/o", "per-minute", "allowed"))
	assert.Equal(t, 2.0, requests(t, c, "/o", "per-minute", "would_deny"))
}

// A fallback decision's Remaining is of the local share (10 here), its
// Limit the whole one (100): a client that has used one request of its
// 100 is not near the limit, and near_limit_total must not say so. With
// ten replicas, every request the fallback admitted was counted as near.
func TestFallbackDecisionsAreNotNearTheLimit(t *testing.T) {
	c, err := metrics.New()
	require.NoError(t, err)
	s := outageSite(t, c)
	assert.Equal(t, []int{200}, s.get(t, 1, "/e", "client-alpha-key"))
	assert.Equal(t, []int{200}, s.get(t, 1, "/o", "client-beta"))

	const want = `
# HELP ratewindow_near_limit_total Allowed requests that left a policy with at most the near-limit fraction of its limit.
# TYPE ratewindow_near_limit_total counter
ratewindow_near_limit_total{policy="per-minute",route="/e"} 0
ratewindow_near_limit_total{policy="per-minute",route="/o"} 0
`
	require.NoError(t, testutil.CollectAndCompare(c, strings.NewReader(want), "ratewindow_near_limit_total"))
	assert.Equal(t, 1.0, requests(t, c, "/e", "per-minute", "allowed"))
}
