package e2etest

import (
	"context"
	"net/http"
	"strings"
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
)

// TestFullRedisThroughTheMiddleware fills Redis (maxmemory below what it
// holds, noeviction) under net/http, fail open: every request passes at
// once, with no rate-limit fields; the metrics count store errors (so
// RateWindowStoreErrors fires), the log names the cause, and nothing was
// charged: once Redis has room again the client has its whole quota.
func TestFullRedisThroughTheMiddleware(t *testing.T) {
	t.Parallel()
	srv := testredis.Server(t)
	admin := srv.Client(t)
	client := redis.NewUniversalClient(redisstore.ClientOptions(srv.Addr))
	t.Cleanup(func() { _ = client.Close() })
	store, err := redisstore.New(client)
	require.NoError(t, err)
	l, err := core.NewLimiter(store, []core.Policy{core.Per(3, time.Hour).Named("api")})
	require.NoError(t, err)
	collector, err := metrics.New()
	require.NoError(t, err)
	var out logs
	// A full Redis answers at once; a timeout a busy machine cannot
	// exhaust makes sure every store error is the refusal (the log must
	// name it) and that every decision once Redis has room is Redis's.
	app := netHTTP(t, l, ratewindow.WithTimeout(5*time.Second),
		ratewindow.WithOnDecision(collector.Observe, logging.Hook(out.logger())))

	testredis.FillUp(t, admin)
	watch := watchStalls(t)
	var slowest time.Duration
	for range 10 {
		from := time.Now()
		resp, took := app.get(t, "/api/items", "c1")
		assert.Equal(t, http.StatusOK, resp.StatusCode, "fail open")
		assert.Empty(t, resp.Header.Get("RateLimit"))
		slowest = max(slowest, watch.own(from, took))
	}
	t.Logf("slowest of 10 requests on a full Redis: %v (stalls of this process aside)", slowest)
	assert.Less(t, slowest, deadBound)
	series := gather(t, collector)
	assert.Equal(t, 10.0, sum(series, "ratewindow_requests_total", "outcome=store_error_passed"))
	passed := withMsg(out.records(t), "limiter failed, request passed")
	require.NotEmpty(t, passed)
	msg, _ := passed[0]["err"].(string)
	assert.True(t, strings.Contains(msg, "out of memory"), "the log names the cause: %q", msg)

	require.NoError(t, admin.ConfigSet(context.Background(), "maxmemory", "0").Err())
	for i := range 4 {
		resp, _ := app.get(t, "/api/items", "c1")
		want := http.StatusOK
		if i == 3 {
			want = http.StatusTooManyRequests
		}
		assert.Equal(t, want, resp.StatusCode, "request %d after Redis has room: nothing was charged while full", i)
	}
}
