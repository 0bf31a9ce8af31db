package nethttp_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/middleware/adaptertest"
	"github.com/ratewindow/ratewindow/nethttp"
)

func mount(t *testing.T, l *core.Limiter, opts []ratewindow.Option) (string, error) {
	limit, err := nethttp.New(l, opts...)
	if err != nil {
		return "", err
	}
	return serve(t, limit), nil
}

func mountLimit(t *testing.T, l *core.Limiter) string { return serve(t, nethttp.Limit(l)) }

// mountAll wraps the whole ServeMux.
func mountAll(t *testing.T, l *core.Limiter, opts []ratewindow.Option) (string, error) {
	limit, err := nethttp.New(l, opts...)
	if err != nil {
		return "", err
	}
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok\n") })
	mux := http.NewServeMux()
	mux.Handle("GET /{$}", ok)
	mux.Handle("GET /items/{id}", ok)
	mux.Handle("GET /healthz", ok)
	srv := httptest.NewServer(limit(mux))
	t.Cleanup(srv.Close)
	return srv.URL, nil
}

func serve(t *testing.T, limit func(http.Handler) http.Handler) string {
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok\n") })
	mux := http.NewServeMux()
	mux.Handle("GET /{$}", limit(ok))
	mux.Handle("GET /items/{id}", limit(ok))
	mux.Handle("GET /healthz", ok)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestAdapter(t *testing.T) {
	adaptertest.Run(t, adaptertest.Adapter{Name: "nethttp", Mount: mount, MountLimit: mountLimit, MountAll: mountAll, ItemsRoute: "/items/{id}"})
}
