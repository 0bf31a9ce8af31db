package logging_test

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
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
