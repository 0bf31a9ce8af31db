package e2etest

import (
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/redisstore"
	"github.com/ratewindow/ratewindow/core/resilient"
	"github.com/ratewindow/ratewindow/ginmw"
	"github.com/ratewindow/ratewindow/internal/testredis"
	"github.com/ratewindow/ratewindow/keyfuncs"
	"github.com/ratewindow/ratewindow/logging"
	"github.com/ratewindow/ratewindow/metrics"
)

// ginApp starts a Gin engine with mw on GET /api/items, keyed as netHTTP
// is.
func ginApp(t testing.TB, l *core.Limiter, opts ...ratewindow.Option) *server {
	t.Helper()
	gin.SetMode(gin.TestMode)
	opts = append([]ratewindow.Option{ratewindow.WithKeyFunc(keyfuncs.Header(clientHeader, nil))}, opts...)
	mw, err := ginmw.New(l, opts...)
	require.NoError(t, err)
	r := gin.New()
	r.GET("/api/items", mw, func(c *gin.Context) { c.Status(http.StatusOK) })
	return serve(t, r)
}

// TestFrozenRedisBehindTheBreakerOnGin freezes Redis (SIGSTOP: it accepts
// connections and never answers) under the production set-up of
// docs/failure-modes.md on Gin: core/resilient's breaker with its hooks
// to the metrics and the log, fail closed, a store timeout. The first
// calls wait the timeout and answer 503, the breaker opens and the rest
// fail fast, still 503; an observe-only route on the same limiter passes
// every request. No request takes seconds. The breaker gauge reads open,
// the log says the breaker opened, and the store errors are counted; once
// Redis resumes, a probe closes the breaker, and the gauge and the log say
// so.
func TestFrozenRedisBehindTheBreakerOnGin(t *testing.T) {
	t.Parallel()
	srv := testredis.Server(t)
	proc := pid(t, srv.Client(t))
	client := redis.NewUniversalClient(redisstore.ClientOptions(srv.Addr))
	t.Cleanup(func() { _ = client.Close() })
	primary, err := redisstore.New(client)
	require.NoError(t, err)
	collector, err := metrics.New()
	require.NoError(t, err)
	var out logs
	breakerLog := logging.BreakerStateChange(out.logger())
	// Each open interval lets one request through to wait out the
	// timeout: an interval long against the time a request takes on a
	// busy machine keeps those probes a few of the 60 requests.
	store, err := resilient.New(primary, resilient.WithOpenInterval(time.Second),
		resilient.WithOnStateChange(func(from, to resilient.State) {
			collector.BreakerStateChanged(from, to)
			breakerLog(from, to)
		}))
	require.NoError(t, err)
	l, err := core.NewLimiter(store, []core.Policy{core.PerMinute(1000).Named("api")})
	require.NoError(t, err)
	const timeout = 100 * time.Millisecond
	var fastFails atomic.Int64 // requests the open breaker failed at once
	countFast := func(ev ratewindow.Event) {
		if errors.Is(ev.Err, resilient.ErrCircuitOpen) {
			fastFails.Add(1)
		}
	}
	hooks := ratewindow.WithOnDecision(collector.Observe, logging.Hook(out.logger()), countFast)
	enforce := ginApp(t, l, ratewindow.WithFailClosed(), ratewindow.WithTimeout(timeout), hooks)
	observe := ginApp(t, l, ratewindow.WithObserveOnly(true), ratewindow.WithFailClosed(), ratewindow.WithTimeout(timeout), hooks)

	resp, _ := enforce.get(t, "/api/items", "c1")
	require.Equal(t, http.StatusOK, resp.StatusCode)

	watch := watchStalls(t)
	thaw := freeze(t, proc)
	var slowest time.Duration
	const requests = 30
	for i := range requests {
		from := time.Now()
		resp, took := enforce.get(t, "/api/items", "c1")
		assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, "request %d", i)
		slowest = max(slowest, watch.own(from, took))
		from = time.Now()
		resp, took = observe.get(t, "/api/items", "c1")
		assert.Equal(t, http.StatusOK, resp.StatusCode, "request %d", i)
		slowest = max(slowest, watch.own(from, took))
	}
	t.Logf("slowest of %d requests on a frozen Redis: %v, stalls of this process aside (store timeout %v)", 2*requests, slowest, timeout)
	assert.Less(t, slowest, deadBound)
	assert.Equal(t, resilient.Open, store.State(), "the breaker opened on the frozen Redis")

	series := gather(t, collector)
	assert.Equal(t, float64(requests), sum(series, "ratewindow_requests_total", "outcome=store_error_rejected", "route=/api/items"))
	assert.Equal(t, float64(requests), sum(series, "ratewindow_requests_total", "outcome=store_error_passed", "route=/api/items"))
	assert.Positive(t, series["ratewindow_circuit_breaker_state{}"], "the gauge says the breaker is not closed")
	recs := out.records(t)
	require.NotEmpty(t, withMsg(recs, "circuit breaker opened"))
	require.NotEmpty(t, withMsg(recs, "limiter failed, request rejected"))
	require.NotEmpty(t, withMsg(recs, "limiter failed, request passed"))
	t.Logf("%d of %d requests failed at once by the open breaker", fastFails.Load(), 2*requests)
	assert.Greater(t, fastFails.Load(), int64(requests), "most requests did not wait for the frozen Redis")

	thaw()
	require.Eventually(t, func() bool {
		resp, _ := enforce.get(t, "/api/items", "c1")
		return resp.StatusCode == http.StatusOK
	}, 5*time.Second, 20*time.Millisecond, "a probe closes the breaker once Redis resumes")
	assert.Equal(t, resilient.Closed, store.State())
	assert.Zero(t, gather(t, collector)["ratewindow_circuit_breaker_state{}"])
	assert.NotEmpty(t, withMsg(out.records(t), "circuit breaker closed"))
}
