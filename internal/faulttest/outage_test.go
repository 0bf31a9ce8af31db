package faulttest

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/redisstore"
	"github.com/ratewindow/ratewindow/internal/clocktest"
)

// storeTimeout is the middleware's store timeout in the fault tests.
const storeTimeout = 100 * time.Millisecond

// answerBound is the longest a request may take while the store is down
// or stalled: the store timeout plus a wide margin for a busy, race-enabled
// test machine. A request that waited for Redis would take seconds.
const answerBound = storeTimeout + 900*time.Millisecond

// longTimeout is the store timeout of the apps whose decisions a test
// counts exactly while Redis is up: on a busy machine a call may outlive
// storeTimeout and pass open, or fall back, and look like a miscount.
const longTimeout = 5 * time.Second

// frozenClock returns a fake clock at the start of the current hour, so
// every decision of a test falls in one window whatever the wall time.
func frozenClock() *clocktest.Clock {
	return clocktest.New(time.Now().Truncate(time.Hour))
}

// TestRedisStopsAndComesBack kills a real redis-server under load and
// starts it again: fail-open requests keep being answered within the store
// timeout, fail-closed ones get 503, and limiting resumes, exactly, once
// Redis is back, without restarting anything (go-redis dials again, the
// script is loaded again by the EVALSHA→EVAL fallback).
func TestRedisStopsAndComesBack(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	var cmds counter
	store, err := redisstore.New(srv.client(t, &cmds), redisstore.WithClientTime()) // on frozenClock
	require.NoError(t, err)
	const limit = 20
	l, err := core.NewLimiter(store, []core.Policy{core.Per(limit, time.Hour).Using(core.FixedWindow)},
		core.WithClock(frozenClock()))
	require.NoError(t, err)
	open := newApp(t, l, ratewindow.WithTimeout(storeTimeout))
	closed := newApp(t, l, ratewindow.WithTimeout(storeTimeout), ratewindow.WithFailClosed())
	// The exact counts go through an app that waits long for a live Redis
	// and fails closed: on a busy machine a call over storeTimeout would
	// pass open as an uncounted 200 and look like a miscount.
	exact := newApp(t, l, ratewindow.WithTimeout(longTimeout), ratewindow.WithFailClosed())

	require.Equal(t, map[int]int{http.StatusOK: limit, http.StatusTooManyRequests: 5},
		exact.count(t, "before", limit+5), "limited while Redis is up")

	// A request's time counts but for the time this process stalled
	// (a busy machine): one that waited for the dead Redis would take
	// seconds of its own.
	watch := watchStalls()
	defer watch.stop()
	bg := startLoad([]*app{open, closed}, 4, watch, func(w, i int) string { return "load-" + strconv.Itoa(w) })
	time.Sleep(100 * time.Millisecond)
	srv.stop()

	for i := range 30 {
		from := time.Now()
		s, d := open.get(t, "down")
		require.Equal(t, http.StatusOK, s, "fail-open request %d while Redis is down", i)
		require.Less(t, d, answerBound+watch.stalled(from, from.Add(d)), "fail-open request %d", i)
		from = time.Now()
		s, d = closed.get(t, "down")
		require.Equal(t, http.StatusServiceUnavailable, s, "fail-closed request %d while Redis is down", i)
		require.Less(t, d, answerBound+watch.stalled(from, from.Add(d)), "fail-closed request %d", i)
	}

	evals := cmds.named("eval")
	srv.restart()
	require.Eventually(t, func() bool {
		s, _ := closed.get(t, "probe")
		return s == http.StatusOK
	}, 5*time.Second, 20*time.Millisecond, "limiting resumes once Redis is back")

	assert.Greater(t, cmds.named("eval"), evals, "the script was loaded again (EVALSHA got NOSCRIPT, EVAL followed)")

	status, slowest, errs := bg.finish()
	assert.Empty(t, errs, "every request of the load got an answer")
	assert.Less(t, slowest, answerBound, "no request of the load waited on the dead Redis (stalls of this process aside)")
	for s := range status {
		assert.Contains(t, []int{http.StatusOK, http.StatusTooManyRequests, http.StatusServiceUnavailable}, s)
	}
	assert.Positive(t, status[http.StatusServiceUnavailable], "the fail-closed app refused requests during the outage")

	// The restarted Redis is empty (no persistence): counts start again.
	assert.Equal(t, map[int]int{http.StatusOK: limit, http.StatusTooManyRequests: 5},
		exact.count(t, "after", limit+5), "limited exactly after Redis came back")
	assert.Equal(t, map[int]int{http.StatusOK: limit, http.StatusTooManyRequests: 5},
		exact.count(t, "before", limit+5), "counts of before the crash are gone with the crashed server")
}
