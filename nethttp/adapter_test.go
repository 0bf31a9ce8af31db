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
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok\n") })
	mux := http.NewServeMux()
	mux.Handle("GET /{$}", limit(ok))
	mux.Handle("GET /items/{id}", limit(ok))
	mux.Handle("GET /healthz", ok)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL, nil
}

func TestAdapter(t *testing.T) {
	adaptertest.Run(t, adaptertest.Adapter{Name: "nethttp", Mount: mount, ItemsRoute: "/items/{id}"})
}
