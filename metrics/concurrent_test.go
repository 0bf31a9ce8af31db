package metrics_test

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

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

// Concurrent traffic through real middleware, every outcome at once on a
// frozen clock, a store down behind the local fallback included: each
// request is counted exactly once, under the outcome its response shows,
// and the enforced routes admit exactly their limit (the fallback's, its
// share).
func TestCountsMatchResponsesUnderConcurrency(t *testing.T) {
	const limit, workers, perWorker = 20, 8, 56
	paths := []string{"/enforced", "/observed", "/open", "/closed", "/skipped", "/nokey", "/fallback"}
	keys := []string{"client-alpha-key", "client-beta"}

	c, err := metrics.New()
	require.NoError(t, err)
	clock := clocktest.New(time.Unix(1_700_000_000, 0))
	mux := http.NewServeMux()
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	stores := map[string]*storeDouble{}
	limited := func(route string, opts ...ratewindow.Option) {
		st := newStoreDouble()
		stores[route] = st
		l, err := core.NewLimiter(st, []core.Policy{core.PerMinute(limit).Named("per-minute")}, core.WithClock(clock))
		require.NoError(t, err)
		base := []ratewindow.Option{ratewindow.WithKeyFunc(keyfuncs.Header("X-Client", nil)), ratewindow.WithOnDecision(c.Observe)}
		mw, err := nethttp.New(l, append(base, opts...)...)
		require.NoError(t, err)
		mux.Handle("GET "+route, mw(ok))
	}
	limited("/enforced")
	limited("/observed", ratewindow.WithObserveOnly(true))
	limited("/open")
	limited("/closed", ratewindow.WithFailClosed())
	limited("/skipped", ratewindow.WithSkip(func(keyfuncs.Request) bool { return true }))
	limited("/nokey")
	stores["/open"].down.Store(true)
	stores["/closed"].down.Store(true)
	// The store down behind core/resilient's local fallback, with two
	// replicas: each key's share is half the limit.
	down := newStoreDouble()
	down.down.Store(true)
	rs, err := resilient.New(down, resilient.WithFallback(2))
	require.NoError(t, err)
	fl, err := core.NewLimiter(rs, []core.Policy{core.PerMinute(limit).Named("per-minute")}, core.WithClock(clock))
	require.NoError(t, err)
	fmw, err := nethttp.New(fl, ratewindow.WithKeyFunc(keyfuncs.Header("X-Client", nil)), ratewindow.WithOnDecision(c.Observe))
	require.NoError(t, err)
	mux.Handle("GET /fallback", fmw(ok))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	// codes[path][status] counts the responses.
	var mu sync.Mutex
	codes := map[string]map[int]int{}
	for _, p := range paths {
		codes[p] = map[int]int{}
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range perWorker {
				p := paths[(w+i)%len(paths)]
				req, err := http.NewRequest(http.MethodGet, srv.URL+p, nil)
				if !assert.NoError(t, err) {
					return
				}
				if p != "/nokey" {
					req.Header.Set("X-Client", keys[(w+i/len(paths))%len(keys)])
				}
				resp, err := srv.Client().Do(req)
				if !assert.NoError(t, err) {
					return
				}
				_ = resp.Body.Close()
				mu.Lock()
				codes[p][resp.StatusCode]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()

	require.Zero(t, workers*perWorker%len(paths), "every path gets as many requests")
	perPath := workers * perWorker / len(paths)
	for _, p := range paths {
		total := 0
		for _, n := range codes[p] {
			total += n
		}
		require.Equal(t, perPath, total, "requests sent to %s", p)
	}
	// Each key sent more than the limit to the enforced route: exactly
	// the limit of each was admitted.
	require.Greater(t, perPath/len(keys), limit)
	assert.Equal(t, map[int]int{200: limit * len(keys), 429: perPath - limit*len(keys)}, codes["/enforced"])
	assert.Equal(t, map[int]int{200: perPath}, codes["/observed"])
	assert.Equal(t, map[int]int{200: limit / 2 * len(keys), 429: perPath - limit/2*len(keys)}, codes["/fallback"])

	want := map[string]float64{
		"/enforced per-minute allowed":      float64(codes["/enforced"][200]),
		"/enforced per-minute denied":       float64(codes["/enforced"][429]),
		"/observed per-minute allowed":      float64(limit * len(keys)),
		"/observed per-minute would_deny":   float64(perPath - limit*len(keys)),
		"/open none store_error_passed":     float64(codes["/open"][200]),
		"/closed none store_error_rejected": float64(codes["/closed"][503]),
		"/skipped none skipped":             float64(codes["/skipped"][200]),
		"/nokey none unclassified_rejected": float64(codes["/nokey"][400]),
		"/fallback per-minute allowed":      float64(codes["/fallback"][200]),
		"/fallback per-minute denied":       float64(codes["/fallback"][429]),
	}
	got := map[string]float64{}
	for _, m := range gather(t, c)["ratewindow_requests_total"].GetMetric() {
		if v := m.GetCounter().GetValue(); v != 0 {
			l := labelsOf(m)
			got[l["route"]+" "+l["policy"]+" "+l["outcome"]] = v
		}
	}
	assert.Equal(t, want, got)
	fallback := map[string]float64{}
	for _, m := range gather(t, c)["ratewindow_fallback_decisions_total"].GetMetric() {
		if v := m.GetCounter().GetValue(); v != 0 {
			l := labelsOf(m)
			fallback[l["route"]+" "+l["outcome"]] = v
		}
	}
	assert.Equal(t, map[string]float64{
		"/fallback allowed": float64(codes["/fallback"][200]),
		"/fallback denied":  float64(codes["/fallback"][429]),
	}, fallback)

	// One duration sample per store call, none for skipped requests or
	// requests without a key.
	counts := histogramCounts(t, c)
	for route, st := range stores {
		assert.Equal(t, uint64(st.calls.Load()), counts[route], "store calls on %s", route)
	}
	assert.Zero(t, counts["/skipped"])
	assert.Zero(t, counts["/nokey"])
	// Behind the fallback, one call to the resilient Store per request,
	// whether or not it reached the store.
	assert.Equal(t, uint64(perPath), counts["/fallback"])
}
