package config_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/config"
	"github.com/ratewindow/ratewindow/nethttp"
)

// quiet is the option that sends a Set's log records nowhere.
func quiet() config.Option {
	return config.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
}

// write writes content to the file at path, replacing it.
func write(t testing.TB, path, content string) {
	t.Helper()
	tmp := path + ".tmp"
	require.NoError(t, os.WriteFile(tmp, []byte(content), 0o600))
	require.NoError(t, os.Rename(tmp, path))
}

// file writes content to a new file and returns its path.
func file(t testing.TB, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "limits.json")
	write(t, path, content)
	return path
}

// server serves GET /search, GET /other and GET /{$} behind the set's
// middleware on net/http.
func server(t testing.TB, s *config.Set) http.Handler {
	t.Helper()
	mw, err := nethttp.New(nil, s.Options()...)
	require.NoError(t, err)
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {})
	mux := http.NewServeMux()
	mux.Handle("GET /search", mw(ok))
	mux.Handle("GET /other", mw(ok))
	mux.Handle("GET /{$}", mw(ok))
	return mux
}

// get sends GET path with X-Client and X-Tenant headers (when not empty)
// and returns the status.
func get(h http.Handler, path, client, tenant string) int {
	r := httptest.NewRequest(http.MethodGet, path, nil)
	if client != "" {
		r.Header.Set("X-Client", client)
	}
	if tenant != "" {
		r.Header.Set("X-Tenant", tenant)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Code
}

// statuses sends n requests and counts each status.
func statuses(h http.Handler, n int, path, client, tenant string) map[int]int {
	out := map[int]int{}
	for i := 0; i < n; i++ {
		out[get(h, path, client, tenant)]++
	}
	return out
}
