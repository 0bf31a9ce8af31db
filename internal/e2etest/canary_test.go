package e2etest

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/redisstore"
	"github.com/ratewindow/ratewindow/internal/testredis"
	"github.com/ratewindow/ratewindow/logging"
	"github.com/ratewindow/ratewindow/metrics"
	"github.com/ratewindow/ratewindow/topkeys"
)

// deadBound is the most a request may take while the store is dead, with
// a wide margin for a busy machine: the promises are "milliseconds" for a
// refused connection and "the store timeout" (100 ms here) for a frozen
// server, never seconds.
const deadBound = time.Second

// topRow is one row of the topkeys handler's answer.
type topRow struct {
	Route  string `json:"route"`
	Policy string `json:"policy"`
	Key    string `json:"key"`
	Count  uint64 `json:"count"`
}

// topOf returns the rows the topkeys handler answers.
func topOf(t testing.TB, top *topkeys.Summary) []topRow {
	t.Helper()
	rec := httptest.NewRecorder()
	top.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/debug/ratewindow/top?n=all", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	var body struct {
		Top []topRow `json:"top"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body))
	return body.Top
}

// TestCanaryOnRedis rolls a limit out as README's "Rolling out a limit"
// says, on a real Redis, through net/http with the production options
// (fail closed, a store timeout, metrics, top keys, logs): observe-only
// writes the headers, charges what enforcement would charge and blocks
// nothing, and the metrics, the top keys and the log say who would be
// denied; enforcing then refuses the client at once, its counts carried
// over. When Redis dies, observe-only still passes every request, fail
// closed or not, in milliseconds, and the metrics and log say the limiter
// failed; the enforcing middleware answers 503.
func TestCanaryOnRedis(t *testing.T) {
	t.Parallel()
	srv := testredis.Server(t)
	client := redis.NewUniversalClient(redisstore.ClientOptions(srv.Addr))
	t.Cleanup(func() { _ = client.Close() })
	store, err := redisstore.New(client)
	require.NoError(t, err)
	l, err := core.NewLimiter(store, []core.Policy{core.Per(5, time.Hour).Named("canary").Using(core.FixedWindow)})
	require.NoError(t, err)

	collector, err := metrics.New()
	require.NoError(t, err)
	top, err := topkeys.New(100, topkeys.WithRawKeys())
	require.NoError(t, err)
	var out logs
	hooks := ratewindow.WithOnDecision(collector.Observe, top.Observe, logging.Hook(out.logger(), logging.WithRawKeys()))
	// Every decision on the live Redis is counted exactly: a timeout a
	// busy machine cannot exhaust (a call over a short one would pass
	// with no decision). A dead Redis refuses at once: that phase does not
	// wait for it either.
	const timeout = 5 * time.Second
	observe := netHTTP(t, l, ratewindow.WithObserveOnly(true), ratewindow.WithFailClosed(), ratewindow.WithTimeout(timeout), hooks)
	enforce := netHTTP(t, l, ratewindow.WithFailClosed(), ratewindow.WithTimeout(timeout), hooks)

	// Observe: eight requests of a client allowed five, all passed.
	for i := range 8 {
		resp, _ := observe.get(t, "/api/items", "c1")
		require.Equal(t, http.StatusOK, resp.StatusCode, "request %d", i)
		want := `"canary";r=0;t=`
		if i < 5 {
			want = `"canary";r=` + string(rune('0'+4-i)) + `;t=`
		}
		assert.Contains(t, resp.Header.Get("RateLimit"), want, "request %d", i)
		assert.Equal(t, `"canary";q=5;w=3600`, resp.Header.Get("RateLimit-Policy"))
	}
	// Charged as enforcement would have: the five it admits.
	d, err := l.Peek(context.Background(), "hdr:x-client:c1", 1)
	require.NoError(t, err)
	assert.False(t, d.Allowed)
	assert.Zero(t, d.Remaining)

	series := gather(t, collector)
	assert.Equal(t, 5.0, sum(series, "ratewindow_requests_total", "outcome=allowed", "policy=canary", "route=/api/"))
	assert.Equal(t, 3.0, sum(series, "ratewindow_requests_total", "outcome=would_deny", "policy=canary", "route=/api/"))
	assert.Zero(t, sum(series, "ratewindow_requests_total", "outcome=denied"))
	rows := topOf(t, top)
	require.Len(t, rows, 1)
	assert.Equal(t, "/api/", rows[0].Route)
	assert.Equal(t, "hdr:x-client:c1", rows[0].Key)
	assert.Equal(t, uint64(3), rows[0].Count)
	assert.Equal(t, "canary", rows[0].Policy)
	would := withMsg(out.records(t), "would be denied")
	require.NotEmpty(t, would, "the log names a would-deny")
	assert.Equal(t, "canary", would[0]["policy"])
	assert.Equal(t, 5.0, would[0]["limit"])
	assert.Equal(t, "hdr:x-client:c1", would[0]["key"])

	// Enforce: the client is over its limit already.
	resp, _ := enforce.get(t, "/api/items", "c1")
	assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	assert.NotEmpty(t, resp.Header.Get("Retry-After"))
	resp, _ = enforce.get(t, "/api/items", "c2")
	assert.Equal(t, http.StatusOK, resp.StatusCode)

	// Redis dies.
	srv.Stop()
	watch := watchStalls(t)
	var slowest time.Duration
	for i := range 20 {
		from := time.Now()
		resp, took := observe.get(t, "/api/items", "c3")
		assert.Equal(t, http.StatusOK, resp.StatusCode, "observe-only passes, fail closed or not (request %d)", i)
		assert.Empty(t, resp.Header.Get("RateLimit"), "no decision, no fields")
		slowest = max(slowest, watch.own(from, took))
		from = time.Now()
		resp, took = enforce.get(t, "/api/items", "c3")
		assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, "request %d", i)
		slowest = max(slowest, watch.own(from, took))
	}
	t.Logf("slowest of 40 requests on a dead Redis: %v (stalls of this process aside)", slowest)
	assert.Less(t, slowest, deadBound)

	series = gather(t, collector)
	assert.Equal(t, 20.0, sum(series, "ratewindow_requests_total", "outcome=store_error_passed"))
	assert.Equal(t, 20.0, sum(series, "ratewindow_requests_total", "outcome=store_error_rejected"))
	recs := out.records(t)
	passed := withMsg(recs, "limiter failed, request passed")
	require.NotEmpty(t, passed)
	assert.Equal(t, "WARN", passed[0]["level"])
	assert.Equal(t, true, passed[0]["observe_only"])
	rejected := withMsg(recs, "limiter failed, request rejected")
	require.NotEmpty(t, rejected)
	assert.Equal(t, "ERROR", rejected[0]["level"])
	assert.Equal(t, false, rejected[0]["observe_only"])
}
