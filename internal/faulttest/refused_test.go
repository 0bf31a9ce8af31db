package faulttest

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/redisstore"
)

// refusedBound is how long a request may take while Redis refuses
// connections, stalls of this process aside: "milliseconds", with a wide
// margin for a busy, race-enabled machine, and far below the store
// timeout of the test (2 s) and go-redis's own dial retries (about 1.7 s).
const refusedBound = 500 * time.Millisecond

// TestRefusedRedisFailsInMilliseconds: with the client of the README
// (redisstore.ClientOptions), a Redis that refuses connections costs each
// request milliseconds, not the store timeout: fail-open passes with no
// rate-limit headers, fail-closed answers 503, for sequential and
// concurrent requests, whether the pool held connections to the crashed
// server or not.
func TestRefusedRedisFailsInMilliseconds(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	client := redis.NewUniversalClient(redisstore.ClientOptions(srv.addr()))
	t.Cleanup(func() { _ = client.Close() })
	store, err := redisstore.New(client, redisstore.WithClientTime()) // on frozenClock
	require.NoError(t, err)
	l, err := core.NewLimiter(store, []core.Policy{core.Per(1000, time.Hour).Using(core.FixedWindow)},
		core.WithClock(frozenClock()))
	require.NoError(t, err)
	const timeout = 2 * time.Second // only a fast failure stays under refusedBound
	var seen events
	open := newApp(t, l, ratewindow.WithTimeout(timeout), ratewindow.WithOnDecision(seen.record))
	closed := newApp(t, l, ratewindow.WithTimeout(timeout), ratewindow.WithFailClosed())

	// Warm up: the pool holds connections to the server about to crash.
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for range 5 {
				s, _, err := open.try("warm" + strconv.Itoa(w))
				assert.NoError(t, err)
				assert.Equal(t, http.StatusOK, s)
			}
		})
	}
	wg.Wait()
	seen.take()

	srv.stop()
	// A request's time counts but for the time this process stalled (a
	// busy machine): one that waited for a timeout or a dial retry would
	// take a second or more of its own.
	watch := watchStalls()
	defer watch.stop()
	var mu sync.Mutex
	var slowest, slowestInAll time.Duration
	for w := range 8 {
		wg.Go(func() {
			for i := range 20 {
				a, want := open, http.StatusOK
				if (w+i)%2 == 1 {
					a, want = closed, http.StatusServiceUnavailable
				}
				from := time.Now()
				resp, d := a.getResp(t, "down"+strconv.Itoa(w))
				assert.Equal(t, want, resp.StatusCode)
				for name := range resp.Header {
					n := strings.ToLower(name)
					assert.False(t, strings.Contains(n, "ratelimit") || n == "retry-after",
						"no rate-limit field on a store error: %s", name)
				}
				mu.Lock()
				slowest = max(slowest, d-watch.stalled(from, from.Add(d)))
				slowestInAll = max(slowestInAll, d)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	t.Logf("slowest of 160 requests on a refused Redis: %v, %v but for stalls of this process (store timeout %v)",
		slowestInAll, slowest, timeout)
	assert.Less(t, slowest, refusedBound, "each call fails in milliseconds")
	evs := seen.take()
	require.Len(t, evs, 80)
	for _, ev := range evs {
		assert.Equal(t, ratewindow.StoreErrorPassed, ev.Outcome)
		assert.Error(t, ev.Err)
		assert.False(t, isTimeout(ev.Err), "a refused connection, not a timeout: %v", ev.Err)
	}

	// Redis comes back empty: nothing restarts, and the client's
	// OnConnect hook loads the scripts on each new connection, so the
	// new server never answers NOSCRIPT nor sees an EVAL.
	srv.restart()
	require.Eventually(t, func() bool {
		s, _ := closed.get(t, "back")
		return s == http.StatusOK
	}, 5*time.Second, 20*time.Millisecond, "limiting resumes once Redis is back")
	stats, err := srv.client(t).Info(context.Background(), "commandstats").Result()
	require.NoError(t, err)
	assert.NotContains(t, stats, "cmdstat_eval:", "no EVAL on the restarted server")
	assert.Contains(t, stats, "cmdstat_evalsha:")
	assert.Regexp(t, `cmdstat_evalsha:calls=\d+,[^\r\n]*failed_calls=0`, stats, "no NOSCRIPT on the restarted server")
}
