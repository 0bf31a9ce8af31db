package topkeys_test

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/clocktest"
	"github.com/ratewindow/ratewindow/topkeys"
)

var t0 = time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)

// denied returns a denied Event for key on route under policy.
func denied(route, policy, key string) ratewindow.Event {
	return ratewindow.Event{
		Outcome: ratewindow.Denied, WouldDeny: true, Key: key, Route: route, Cost: 1,
		Decision: core.Decision{Policies: []core.Policy{core.PerMinute(10).Named(policy)}},
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	_, err := topkeys.New(0)
	require.ErrorIs(t, err, core.ErrInvalidConfig)
	assert.ErrorContains(t, err, "capacity")
}

func TestGenerousCapacityCostsNothingUpFront(t *testing.T) {
	// A capacity beyond any memory: New must not allocate it (the old code
	// panicked in make), and the Summary still counts.
	s, err := topkeys.New(math.MaxInt)
	require.NoError(t, err)
	for i := range 3 {
		s.Observe(denied("/a", "1m", "k"+strconv.Itoa(i)))
	}
	s.Observe(denied("/a", "1m", "k0"))
	assert.Equal(t, 3, s.Len())
	rep := s.Top(0, nil)
	require.Len(t, rep.Top, 3)
	assert.Equal(t, uint64(2), rep.Top[0].Count)
	assert.Equal(t, math.MaxInt, rep.Capacity)
}

func TestObserveCountsOnlyDenials(t *testing.T) {
	s, err := topkeys.New(10)
	require.NoError(t, err)
	would := denied("/a", "p", "k1")
	would.Outcome = ratewindow.WouldDeny
	s.Observe(would)
	s.Observe(denied("/a", "p", "k1"))
	s.Observe(denied("/a", "q", "k1")) // another policy: another item
	s.Observe(denied("/b", "p", "k1")) // another route: another item
	allowed := denied("/a", "p", "k2")
	allowed.Outcome, allowed.WouldDeny = ratewindow.Allowed, false
	s.Observe(allowed)
	s.Observe(ratewindow.Event{Outcome: ratewindow.StoreErrorPassed, Key: "k3"})
	s.Observe(denied("/a", "p", "")) // no key: nothing to show

	rep := s.Top(0, nil)
	assert.Equal(t, uint64(4), rep.Events)
	assert.Equal(t, uint64(0), rep.ErrorBound)
	require.Len(t, rep.Top, 3)
	assert.Equal(t, topkeys.Entry{Route: "/a", Policy: "p", Key: "k1", Count: 2}, withoutTime(rep.Top[0]))
	only := s.Top(0, func(route, policy string) bool { return route == "/a" })
	assert.Len(t, only.Top, 2)
}

func withoutTime(e topkeys.Entry) topkeys.Entry { e.LastSeen = time.Time{}; return e }

// TestSkewedFlood feeds a flood of distinct keys with ten heavy hitters
// mixed in, and checks the Space-Saving guarantees: the true top ten are
// the reported top ten, every count is within the stated error, and the
// summary never holds more than its capacity.
func TestSkewedFlood(t *testing.T) {
	const capacity = 1000
	distinct := 1_000_000
	if raceEnabled {
		distinct = 200_000 // the race detector makes each call ~10x slower
	}
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s, err := topkeys.New(capacity, topkeys.WithRawKeys())
	require.NoError(t, err)

	// Heavy key h gets (10-h) × 1.5‰ of the flood: 1500 down to 150 per
	// 100,000 distinct keys. Events are interleaved at random.
	truth := map[string]uint64{}
	var heavy []string
	for h := 0; h < 10; h++ {
		k := "heavy-" + strconv.Itoa(h)
		heavy = append(heavy, k)
		truth[k] = uint64((10 - h) * distinct * 15 / 10_000)
	}
	left := map[string]uint64{}
	for k, n := range truth {
		left[k] = n
	}
	rng := rand.New(rand.NewPCG(1, 2))
	ev := denied("/search", "per-minute", "")
	var buf []byte
	total := distinct
	for _, n := range truth {
		total += int(n)
	}
	for i, next := 0, 0; i < total; i++ {
		if next < distinct && rng.IntN(total-i) < distinct-next {
			buf = strconv.AppendInt(append(buf[:0], "client-"...), int64(next), 10)
			ev.Key = string(buf)
			next++
		} else {
			for {
				k := heavy[rng.IntN(len(heavy))]
				if left[k] > 0 {
					left[k]--
					ev.Key = k
					break
				}
			}
		}
		s.Observe(ev)
	}

	rep := s.Top(10, nil)
	n := uint64(total)
	bound := n / capacity
	assert.Equal(t, n, rep.Events)
	assert.LessOrEqual(t, rep.ErrorBound, bound)
	require.Len(t, rep.Top, 10)
	for i, e := range rep.Top {
		want := truth[e.Key]
		require.NotZerof(t, want, "rank %d: %q is not a heavy key", i, e.Key)
		assert.Equal(t, heavy[i], e.Key, "rank %d", i)
		assert.GreaterOrEqual(t, e.Count, want, "%s: Space-Saving never under-counts", e.Key)
		assert.LessOrEqual(t, e.Count-want, e.Error, "%s: over-count within the entry's error", e.Key)
		assert.LessOrEqual(t, e.Error, bound, "%s: error within N/k", e.Key)
	}

	// Memory: capacity entries, whatever the number of distinct keys.
	assert.Equal(t, capacity, s.Len())
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	grown := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	const perEntry = 1024 // generous: entry, map slot, three short strings
	t.Logf("%d entries: heap grew by %d bytes (%d per entry)", capacity, grown, grown/capacity)
	assert.Less(t, grown, int64(capacity*perEntry), "heap grew by %d bytes", grown)
	runtime.KeepAlive(s)
}

func TestObserveKnownKeyAllocatesNothing(t *testing.T) {
	// Named ...Alloc... for the allocation pass of scripts/test.
	t.Run("Alloc", func(t *testing.T) {
		if raceEnabled {
			t.Skip("the race detector changes allocation counts; scripts/test runs this without -race")
		}
		s, err := topkeys.New(4)
		require.NoError(t, err)
		ev := denied("/a", "p", "known")
		s.Observe(ev)
		for i := 0; i < 8; i++ { // fill and churn the summary
			s.Observe(denied("/a", "p", "other-"+strconv.Itoa(i)))
		}
		for i := 0; i < 20; i++ {
			s.Observe(ev) // stay tracked
		}
		allowed := ev
		allowed.Outcome, allowed.WouldDeny = ratewindow.Allowed, false
		assert.Zero(t, testing.AllocsPerRun(1000, func() { s.Observe(ev) }))
		assert.Zero(t, testing.AllocsPerRun(1000, func() { s.Observe(allowed) }))
	})
}

func TestHandler(t *testing.T) {
	clock := clocktest.New(t0)
	secret := []byte("s3cret")
	s, err := topkeys.New(8, clocktest.Option[topkeys.Option](clock), topkeys.WithKeySecret(secret))
	require.NoError(t, err)
	for i := 0; i < 3; i++ {
		s.Observe(denied("/a", "per-minute", "10.0.0.1"))
	}
	clock.Advance(time.Second)
	s.Observe(denied("/b", "per-second", "10.0.0.2"))

	get := func(query string) map[string]any {
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/debug/ratewindow/top"+query, nil))
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
		var out map[string]any
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &out))
		return out
	}
	out := get("")
	assert.EqualValues(t, 4, out["events"])
	assert.EqualValues(t, 8, out["capacity"])
	assert.EqualValues(t, 0, out["error_bound"])
	top := out["top"].([]any)
	require.Len(t, top, 2)
	first := top[0].(map[string]any)
	assert.Equal(t, map[string]any{
		"route": "/a", "policy": "per-minute", "key_hash": topkeys.HashKey(secret, "10.0.0.1"),
		"count": 3.0, "error": 0.0, "last_seen": "2026-01-02T15:04:05Z",
	}, first)
	assert.NotContains(t, first, "key", "hashed mode never shows the key")

	assert.Len(t, get("?n=1")["top"], 1)
	byRoute := get("?route=/b")["top"].([]any)
	require.Len(t, byRoute, 1)
	assert.Equal(t, "per-second", byRoute[0].(map[string]any)["policy"])
	assert.Empty(t, get("?policy=nope")["top"])

	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/?n=-1", nil))
	assert.Equal(t, http.StatusBadRequest, rec.Code)

	raw, err := topkeys.New(8, topkeys.WithRawKeys())
	require.NoError(t, err)
	raw.Observe(denied("/a", "p", "10.0.0.9"))
	rec = httptest.NewRecorder()
	raw.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	assert.Contains(t, rec.Body.String(), `"key": "10.0.0.9"`)
}
