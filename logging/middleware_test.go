package logging_test

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/internal/clocktest"
	"github.com/ratewindow/ratewindow/keyfuncs"
	"github.com/ratewindow/ratewindow/logging"
	"github.com/ratewindow/ratewindow/nethttp"
)

// Through real middleware on loopback: an observe-only route and a route
// whose store is down, one logger for both.
func TestHookBehindMiddleware(t *testing.T) {
	logger, buf := jsonLogger(slog.LevelDebug)
	hook := logging.Hook(logger)
	clock := clocktest.New(testEpoch)
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {})
	mount := func(store core.Store, opts ...ratewindow.Option) http.Handler {
		l, err := core.NewLimiter(store, []core.Policy{core.PerMinute(2).Named("per-minute")}, core.WithClock(clock))
		require.NoError(t, err)
		mw, err := nethttp.New(l, append([]ratewindow.Option{
			ratewindow.WithKeyFunc(keyfuncs.Header("X-API-Key", nil)),
			ratewindow.WithOnDecision(hook),
		}, opts...)...)
		require.NoError(t, err)
		return mw(ok)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /canary/{id}", mount(memory.New(), ratewindow.WithObserveOnly(true)))
	mux.Handle("GET /down", mount(downStore{}))
	mux.Handle("GET /down-closed", mount(downStore{}, ratewindow.WithFailClosed()))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	get := func(path string) int {
		req, err := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		require.NoError(t, err)
		req.Header.Set("X-API-Key", secretKey)
		resp, err := srv.Client().Do(req)
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		return resp.StatusCode
	}
	for range 3 {
		assert.Equal(t, http.StatusOK, get("/canary/"+secretKey))
	}
	assert.Equal(t, http.StatusOK, get("/down"))
	assert.Equal(t, http.StatusServiceUnavailable, get("/down-closed"))

	recs := records(t, buf)
	require.Len(t, recs, 3, "two allowed canary requests log nothing")
	assert.Equal(t, logging.MsgWouldDeny, recs[0]["msg"])
	assert.Equal(t, "/canary/{id}", recs[0]["route"])
	assert.Equal(t, 0.0, recs[0]["remaining"])
	assert.Positive(t, recs[0]["retry_after"])
	assert.Equal(t, logging.MsgFailedPassed, recs[1]["msg"])
	assert.Equal(t, "/down", recs[1]["route"])
	assert.Contains(t, recs[1]["err"], errDown.Error())
	assert.Equal(t, logging.MsgFailedRejected, recs[2]["msg"])
	assert.Equal(t, "closed", recs[2]["fail"])
	// Every record names the same client, by hash only.
	for _, r := range recs {
		assert.Equal(t, recs[0]["key_hash"], r["key_hash"])
	}
	assert.NotContains(t, buf.String(), secretKey)
}

// The method is the one free text a client writes into a record (the key
// is hashed, the path never logged): a method of 64 KiB, which net/http
// accepts, must not make each record that big.
func TestHookBoundsMethod(t *testing.T) {
	logger, buf := jsonLogger(slog.LevelDebug)
	clock := clocktest.New(testEpoch)
	l, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(1)}, core.WithClock(clock))
	require.NoError(t, err)
	mw, err := nethttp.New(l,
		ratewindow.WithObserveOnly(true),
		ratewindow.WithOnDecision(logging.Hook(logger, logging.WithDenialEvery(0))))
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.Handle("/canary", mw(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	method := strings.Repeat("A", 64<<10)
	for range 2 {
		req, err := http.NewRequest(method, srv.URL+"/canary", nil)
		require.NoError(t, err)
		resp, err := srv.Client().Do(req)
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		require.Equal(t, http.StatusOK, resp.StatusCode)
	}
	recs := records(t, buf)
	require.Len(t, recs, 1, "the second request would be denied")
	assert.Equal(t, logging.MsgWouldDeny, recs[0]["msg"])
	got, _ := recs[0]["method"].(string)
	assert.True(t, strings.HasPrefix(method, strings.TrimSuffix(got, "…")), "a prefix of the method")
	assert.LessOrEqual(t, len(got), 64, "method of %d bytes", len(got))
	assert.Less(t, buf.Len(), 1024, "record of %d bytes", buf.Len())
}
