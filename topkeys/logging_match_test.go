package topkeys_test

import (
	"bytes"
	"encoding/json"
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
	"github.com/ratewindow/ratewindow/keyfuncs"
	"github.com/ratewindow/ratewindow/logging"
	"github.com/ratewindow/ratewindow/nethttp"
	"github.com/ratewindow/ratewindow/topkeys"
)

// Given one secret, the report and the log name a denied client by the
// same key_hash, for a short key and for one too long to be kept as sent
// (the middleware hashes it into a bounded key first); neither shows the
// key.
func TestReportAndLogHashKeysAlike(t *testing.T) {
	secret := []byte("shared-secret")
	top, err := topkeys.New(16, topkeys.WithKeySecret(secret))
	require.NoError(t, err)
	var logs bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&logs, nil))
	hook := logging.Hook(logger, logging.WithKeySecret(secret), logging.WithDenials(), logging.WithDenialEvery(0))

	l, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(1).Named("per-minute")})
	require.NoError(t, err)
	mw, err := nethttp.New(l, ratewindow.WithKeyFunc(keyfuncs.Header("X-Api-Key", nil)),
		ratewindow.WithOnDecision(top.Observe, hook))
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.Handle("GET /items/{id}", mw(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {})))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	keys := []string{"sk_live_short", "sk_live_" + strings.Repeat("x", 300)}
	for _, key := range keys {
		for range 2 {
			req, err := http.NewRequest(http.MethodGet, srv.URL+"/items/7", nil)
			require.NoError(t, err)
			req.Header.Set("X-Api-Key", key)
			resp, err := srv.Client().Do(req)
			require.NoError(t, err)
			require.NoError(t, resp.Body.Close())
		}
	}

	var logged []string
	for _, line := range bytes.Split(bytes.TrimSpace(logs.Bytes()), []byte("\n")) {
		var r map[string]any
		require.NoError(t, json.Unmarshal(line, &r), "%s", line)
		require.Equal(t, "denied", r["outcome"])
		logged = append(logged, r["key_hash"].(string))
	}
	rec := httptest.NewRecorder()
	top.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/?n=all", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	var rep struct {
		Top []struct {
			Route   string `json:"route"`
			KeyHash string `json:"key_hash"`
			Count   uint64 `json:"count"`
		} `json:"top"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &rep))
	var reported []string
	for _, e := range rep.Top {
		assert.Equal(t, "/items/{id}", e.Route)
		assert.Equal(t, uint64(1), e.Count)
		reported = append(reported, e.KeyHash)
	}
	require.Len(t, logged, len(keys), "one denial per key")
	assert.ElementsMatch(t, logged, reported)
	assert.NotEqual(t, logged[0], logged[1])
	for _, key := range keys {
		key = key[:min(len(key), 40)]
		assert.NotContains(t, logs.String(), key)
		assert.NotContains(t, rec.Body.String(), key)
	}
}
