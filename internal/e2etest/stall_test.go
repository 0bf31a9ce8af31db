package e2etest

import (
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/redisstore"
	"github.com/ratewindow/ratewindow/internal/testredis"
	"github.com/ratewindow/ratewindow/metrics"
)

// TestFrozenRedisWithReadmeSetup freezes Redis under the set-up of the
// README's Redis section and nothing more: the ClientOptions client, no
// WithTimeout, no breaker, fail open, under concurrent clients. ClientOptions
// promises a Redis that does not answer fails a call after 250 ms (a call
// queued for a batch behind the stalled round trips, after at most twice
// that): no request may wait seconds.
func TestFrozenRedisWithReadmeSetup(t *testing.T) {
	t.Parallel()
	srv := testredis.Server(t)
	proc := pid(t, srv.Client(t))
	client := redis.NewUniversalClient(redisstore.ClientOptions(srv.Addr))
	t.Cleanup(func() { _ = client.Close() })
	store, err := redisstore.New(client)
	require.NoError(t, err)
	l, err := core.NewLimiter(store, []core.Policy{core.PerSecond(10_000).Named("api")})
	require.NoError(t, err)
	collector, err := metrics.New()
	require.NoError(t, err)
	app := netHTTP(t, l, ratewindow.WithOnDecision(collector.Observe))

	// Warm the pool.
	for i := range 40 {
		resp, _ := app.get(t, "/api/items", "w"+strconv.Itoa(i))
		require.Equal(t, http.StatusOK, resp.StatusCode)
	}
	// A warm-up call that outlived the client's timeout on a busy
	// machine passed open too: count the frozen Redis's errors only.
	warmErrors := sum(gather(t, collector), "ratewindow_requests_total", "outcome=store_error_passed")
	watch := watchStalls(t)
	thaw := freeze(t, proc)
	var mu sync.Mutex
	var slowest time.Duration
	var wg sync.WaitGroup
	const workers, each = 32, 6
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				from := time.Now()
				resp, took := app.get(t, "/api/items", "c"+strconv.Itoa(w*each+i))
				assert.Equal(t, http.StatusOK, resp.StatusCode)
				mu.Lock()
				slowest = max(slowest, watch.own(from, took))
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	thaw()
	t.Logf("slowest of %d requests on a frozen Redis, ClientOptions and no WithTimeout: %v (stalls of this process aside)", workers*each, slowest)
	assert.Less(t, slowest, deadBound, "a frozen Redis costs the client's timeout, not seconds")
	series := gather(t, collector)
	assert.Equal(t, float64(workers*each), sum(series, "ratewindow_requests_total", "outcome=store_error_passed")-warmErrors)
}
