package faulttest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/redisstore"
	"github.com/ratewindow/ratewindow/core/resilient"
	"github.com/ratewindow/ratewindow/internal/clocktest"
)

// events records the middleware's OnDecision events.
type events struct {
	mu  sync.Mutex
	all []ratewindow.Event
}

func (e *events) record(ev ratewindow.Event) {
	e.mu.Lock()
	e.all = append(e.all, ev)
	e.mu.Unlock()
}

func (e *events) take() []ratewindow.Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := e.all
	e.all = nil
	return out
}

// TestBreakerStopsCallingDeadRedis: with Redis down, the breaker lets
// exactly the threshold of calls reach Redis, then none for the rest of
// the open interval (counted by a go-redis hook); the middleware's
// OnDecision hook sees ErrCircuitOpen; after the interval one probe finds
// Redis back and closes the breaker.
func TestBreakerStopsCallingDeadRedis(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	var calls counter
	rs, err := redisstore.New(srv.client(t, &calls), redisstore.WithClientTime()) // on frozenClock
	require.NoError(t, err)
	breakerClock := clocktest.New(time.Now())
	var mu sync.Mutex
	var changes []string
	store, err := resilient.New(rs,
		resilient.WithFailureThreshold(5),
		resilient.WithOpenInterval(time.Second),
		clocktest.Option[resilient.Option](breakerClock),
		resilient.WithOnStateChange(func(from, to resilient.State) {
			mu.Lock()
			changes = append(changes, from.String()+"->"+to.String())
			mu.Unlock()
		}))
	require.NoError(t, err)
	l, err := core.NewLimiter(store, []core.Policy{core.Per(100, time.Hour).Using(core.FixedWindow)},
		core.WithClock(frozenClock()))
	require.NoError(t, err)
	var seen events
	// A dead Redis refuses at once, so the timeout bounds no call of the
	// outage; once Redis is back, the probe that must close the breaker
	// gets a timeout a busy machine cannot exhaust.
	a := newApp(t, l, ratewindow.WithTimeout(longTimeout), ratewindow.WithOnDecision(seen.record))

	s, _ := a.get(t, "warm")
	require.Equal(t, http.StatusOK, s)
	// Decided by Redis: a failure here would count toward the threshold.
	warm := seen.take()
	require.Len(t, warm, 1)
	require.Equal(t, ratewindow.Allowed, warm[0].Outcome, "the warm-up call: %v", warm[0].Err)

	srv.stop()
	before := calls.n.Load()
	for i := range 200 {
		s, d := a.get(t, "k"+strconv.Itoa(i%7))
		require.Equal(t, http.StatusOK, s, "fail-open")
		require.Less(t, d, answerBound)
	}
	assert.Equal(t, int64(5), calls.n.Load()-before, "only the threshold of calls reached the dead Redis")
	assert.Equal(t, resilient.Open, store.State())
	evs := seen.take()
	require.Len(t, evs, 200)
	for i, ev := range evs {
		assert.Equal(t, ratewindow.StoreErrorPassed, ev.Outcome)
		assert.Equal(t, i >= 5, errors.Is(ev.Err, resilient.ErrCircuitOpen), "event %d: %v", i, ev.Err)
	}

	srv.restart()
	before = calls.n.Load()
	s, _ = a.get(t, "k0")
	assert.Equal(t, http.StatusOK, s)
	assert.Equal(t, before, calls.n.Load(), "still open: Redis not called")
	breakerClock.Advance(time.Second)
	s, _ = a.get(t, "k0")
	assert.Equal(t, http.StatusOK, s)
	assert.Equal(t, resilient.Closed, store.State(), "the probe found Redis back")
	ev := seen.take()
	require.Len(t, ev, 2)
	assert.Equal(t, ratewindow.Allowed, ev[1].Outcome)
	mu.Lock()
	assert.Equal(t, []string{"closed->open", "open->half-open", "half-open->closed"}, changes)
	mu.Unlock()
}

// TestFallbackWhileRedisIsDown: with WithFallback(replicas), requests are
// still limited while Redis is down, each app instance to limit/replicas,
// and the primary decides again once it is back.
func TestFallbackWhileRedisIsDown(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	rs, err := redisstore.New(srv.client(t), redisstore.WithClientTime()) // on frozenClock
	require.NoError(t, err)
	var fellBack sync.Map
	store, err := resilient.New(rs, resilient.WithFallback(4), resilient.WithOpenInterval(50*time.Millisecond),
		resilient.WithOnFallback(func(key string, _ error) { fellBack.Store(key, true) }))
	require.NoError(t, err)
	const limit = 20
	l, err := core.NewLimiter(store, []core.Policy{core.Per(limit, time.Hour).Using(core.FixedWindow)},
		core.WithClock(frozenClock()))
	require.NoError(t, err)
	// marked counts, per key, the decisions that say the fallback made them.
	var mu sync.Mutex
	marked := map[string]int{}
	// The timeout bounds no call of the outage (a dead Redis refuses at
	// once); once Redis is back, a call that timed out on a busy machine
	// would be decided by the fallback and fail the exact count.
	a := newApp(t, l, ratewindow.WithTimeout(longTimeout), ratewindow.WithFailClosed(),
		ratewindow.WithOnDecision(func(ev ratewindow.Event) {
			if ev.Decision.Fallback {
				mu.Lock()
				marked[ev.Key]++
				mu.Unlock()
			}
		}))

	srv.stop()
	got := map[int]int{}
	for i := range 12 {
		resp, _ := a.getResp(t, "down")
		got[resp.StatusCode]++
		// The fields name the configured limit; what remains is counted
		// against the local share; a denial is a normal 429.
		assert.Contains(t, resp.Header.Get("RateLimit-Policy"), ";q=20;", "request %d", i)
		assert.Contains(t, resp.Header.Get("RateLimit"), fmt.Sprintf(";r=%d;", max(0, limit/4-1-i)), "request %d", i)
		if resp.StatusCode == http.StatusTooManyRequests {
			assert.NotEmpty(t, resp.Header.Get("Retry-After"), "request %d", i)
		}
	}
	assert.Equal(t, map[int]int{http.StatusOK: limit / 4, http.StatusTooManyRequests: 12 - limit/4}, got,
		"limited locally to limit/replicas, never 503")
	_, ok := fellBack.Load(clientKey("down"))
	assert.True(t, ok, "OnFallback saw the key")

	srv.restart()
	require.Eventually(t, func() bool {
		a.count(t, "probe", 1) // calls are what move the breaker
		return store.State() == resilient.Closed
	}, 5*time.Second, 60*time.Millisecond)
	assert.Equal(t, map[int]int{http.StatusOK: limit, http.StatusTooManyRequests: 5}, a.count(t, "up", limit+5),
		"Redis decides again")
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, 12, marked[clientKey("down")], "every decision of the outage is marked as the fallback's")
	assert.Zero(t, marked[clientKey("up")], "Redis's decisions are not")
}

// TestDenyCacheSparesRedis: an attacker hammering one key costs one Redis
// call per RetryAfter, not one per request (counted by a go-redis hook),
// and the deny cache never denies what Redis would allow: every decision
// is checked against a Peek on Redis itself at the same instant.
func TestDenyCacheSparesRedis(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	var calls counter
	rs, err := redisstore.New(srv.client(t, &calls), redisstore.WithClientTime()) // on frozenClock
	require.NoError(t, err)
	primary := &takeCounter{Store: rs}
	store, err := resilient.New(primary, resilient.WithDenyCache())
	require.NoError(t, err)
	clock := frozenClock()
	ps := []core.Policy{core.Per(5, time.Second).Named("burst"), core.Per(30, time.Minute).Using(core.SlidingLog).Named("minute")}
	l, err := core.NewLimiter(store, ps, core.WithClock(clock))
	require.NoError(t, err)
	ctx := context.Background()

	// Hammer: 1,000 requests in 100 ms of fake time.
	for range 5 {
		d, err := l.Allow(ctx, "attacker")
		require.NoError(t, err)
		require.True(t, d.Allowed)
	}
	before := calls.n.Load()
	for range 1000 {
		d, err := l.Allow(ctx, "attacker")
		require.NoError(t, err)
		require.False(t, d.Allowed)
		clock.Advance(100 * time.Microsecond)
	}
	assert.Equal(t, int64(1), calls.n.Load()-before, "one Redis call for 1,000 denials")

	// Random traffic on a few keys: the cached verdict always equals
	// what Redis says at that instant.
	rng := rand.New(rand.NewPCG(1, 2))
	takes := primary.takes.Load()
	for i := range 600 {
		clock.Advance(time.Duration(rng.IntN(120)) * time.Millisecond)
		key := "k" + strconv.Itoa(rng.IntN(3))
		truth, err := rs.Peek(ctx, key, l.Policies(), 1, clock.Now())
		require.NoError(t, err)
		d, err := l.Allow(ctx, key)
		require.NoError(t, err)
		want := truth.States[0].Allowed && truth.States[1].Allowed
		require.Equal(t, want, d.Allowed, "request %d for %s", i, key)
		if rng.IntN(50) == 0 {
			require.NoError(t, l.Reset(ctx, key))
		}
	}
	assert.Less(t, primary.takes.Load()-takes, int64(600-50), "the cache answered part of the traffic")
}
