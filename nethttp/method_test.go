package nethttp_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/keyfuncs"
	"github.com/ratewindow/ratewindow/nethttp"
)

// A ServeMux pattern without a method ("/search") hands every method to
// its handler, and net/http accepts any token as a method. A route key
// must not let a client mint a fresh quota (and a new stored key) per
// invented method.
func TestInventedMethodsShareTheRouteQuota(t *testing.T) {
	l, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(2).Using(core.SlidingLog)})
	require.NoError(t, err)
	var keys []string
	limit, err := nethttp.New(l,
		ratewindow.WithKeyFunc(keyfuncs.Compose("|", keyfuncs.RemoteIP, keyfuncs.Route)),
		ratewindow.WithOnDecision(func(ev ratewindow.Event) { keys = append(keys, ev.Key) }))
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.Handle("/search", limit(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok\n") })))

	var codes []int
	for _, m := range []string{"X1", "X2", "X3", "X4", "get", "PROPFIND"} {
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest(m, "/search", nil))
		codes = append(codes, rec.Code)
	}
	assert.Equal(t, []int{200, 200, 429, 429, 429, 429}, codes, "each invented method got a quota of its own")
	assert.Equal(t, "cmp:ip:192.0.2.1|route:OTHER /search", keys[0])
	for _, k := range keys {
		assert.Equal(t, keys[0], k)
	}
}

// A ServeMux pattern "GET /search" also serves HEAD, through the same
// handler: a HEAD request spends the GET quota of the route, or a client
// could double its per-route limit by alternating the two.
func TestHeadSpendsTheGetQuota(t *testing.T) {
	l, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(2).Using(core.SlidingLog)})
	require.NoError(t, err)
	var keys []string
	limit, err := nethttp.New(l,
		ratewindow.WithKeyFunc(keyfuncs.Route),
		ratewindow.WithOnDecision(func(ev ratewindow.Event) { keys = append(keys, ev.Key) }))
	require.NoError(t, err)
	calls := 0
	mux := http.NewServeMux()
	mux.Handle("GET /search", limit(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { calls++ })))

	var codes []int
	for _, m := range []string{"GET", "HEAD", "GET", "HEAD"} {
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest(m, "/search", nil))
		codes = append(codes, rec.Code)
	}
	assert.Equal(t, []int{200, 200, 429, 429}, codes)
	assert.Equal(t, 2, calls, "the handler ran more often than the limit")
	assert.Equal(t, []string{"route:GET /search", "route:GET /search", "route:GET /search", "route:GET /search"}, keys)
}
