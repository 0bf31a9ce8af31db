package e2etest

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/redisstore"
	"github.com/ratewindow/ratewindow/core/resilient"
	"github.com/ratewindow/ratewindow/internal/testredis"
	"github.com/ratewindow/ratewindow/logging"
	"github.com/ratewindow/ratewindow/metrics"
)

// transitions records a breaker's state changes.
type transitions struct {
	mu  sync.Mutex
	got []resilient.State
}

func (tr *transitions) record(_, to resilient.State) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.got = append(tr.got, to)
}

func (tr *transitions) list() []resilient.State {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return append([]resilient.State(nil), tr.got...)
}

// TestFlakyRedisBehindTheFallback: a Redis that stalls now and then
// (CLIENT PAUSE, as a fork or a slow command does) for a little longer
// than the store timeout, behind core/resilient with the local fallback,
// the production set-up of docs/failure-modes.md. The stalls fail one or
// two calls in a row, never the five that open the breaker, and the
// fallback turns each failure into a decision: no request sees a store
// error, and the breaker stays closed. The operator must still see that
// the shared store is failing a share of the decisions: the metrics count
// the fallback decisions (the deploy/ rules alert on their share, see
// RateWindowFallbackDecisions) and the logging hook says so.
func TestFlakyRedisBehindTheFallback(t *testing.T) {
	t.Parallel()
	srv := testredis.Server(t)
	admin := srv.Client(t)
	// The client's own read timeout raised above a stall (which Redis
	// ends up to 100 ms late, at its next cron tick): the store timeout,
	// not the client's, fails the stalled calls.
	opts := redisstore.ClientOptions(srv.Addr)
	opts.ReadTimeout = time.Second
	client := redis.NewUniversalClient(opts)
	t.Cleanup(func() { _ = client.Close() })
	primary, err := redisstore.New(client)
	require.NoError(t, err)

	collector, err := metrics.New()
	require.NoError(t, err)
	var out logs
	var seen transitions
	store, err := resilient.New(primary, resilient.WithFallback(2),
		resilient.WithOnStateChange(func(from, to resilient.State) {
			collector.BreakerStateChanged(from, to)
			logging.BreakerStateChange(out.logger())(from, to)
			seen.record(from, to)
		}))
	require.NoError(t, err)
	l, err := core.NewLimiter(store, []core.Policy{core.PerMinute(100_000).Named("api")})
	require.NoError(t, err)
	// A timeout a busy machine seldom exhausts on its own, so the failures
	// are the stalls'.
	const timeout = 150 * time.Millisecond
	app := netHTTP(t, l, ratewindow.WithTimeout(timeout),
		ratewindow.WithOnDecision(collector.Observe, logging.Hook(out.logger())))

	ctx := context.Background()
	watch := watchStalls(t)
	var slowest time.Duration
	const requests, every = 120, 8
	for i := range requests {
		if i%every == 0 {
			// Longer than one call's timeout, shorter than two.
			require.NoError(t, admin.ClientPause(ctx, timeout+timeout/2).Err())
		}
		from := time.Now()
		resp, d := app.get(t, "/api/items", "c1")
		require.Equal(t, http.StatusOK, resp.StatusCode)
		slowest = max(slowest, watch.own(from, d))
	}
	series := gather(t, collector)
	fallbacks := sum(series, "ratewindow_fallback_decisions_total")
	limited := sum(series, "ratewindow_requests_total") - sum(series, "ratewindow_requests_total", "outcome=skipped")
	t.Logf("%v fallback decisions of %v limited requests; slowest answer %v (stalls of this process aside); breaker transitions %v",
		fallbacks, limited, slowest, seen.list())
	assert.Equal(t, float64(requests), limited)
	assert.Less(t, slowest, time.Second, "a stalled call waits the store timeout, not seconds")

	// What the operator would otherwise watch says nothing is wrong.
	assert.Zero(t, sum(series, "ratewindow_requests_total", "outcome=store_error"), "the fallback decided every failed call")
	// One or two failures in a row never open the breaker (a busy
	// machine may add a slow call now and then: an opening for one open
	// interval is still far from the minute its alert waits).
	assert.Zero(t, series["ratewindow_circuit_breaker_state{}"], "the breaker is closed")

	// Yet over 1% of the decisions were the fallback's.
	require.Greater(t, fallbacks/limited, 0.01, "the stalls sent a share of the decisions to the fallback")

	// The logging hook names the failing store.
	recs := withMsg(out.records(t), "fallback")
	require.NotEmpty(t, recs, "a record says the local fallback decided")
	assert.Equal(t, "WARN", recs[0]["level"])
	assert.Equal(t, true, recs[0]["fallback"])
}
