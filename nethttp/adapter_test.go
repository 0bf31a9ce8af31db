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

// Limit is the one-line form: default options, and a nil limiter answers
// 503 instead of panicking.
func TestLimit(t *testing.T) {
	l, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(1).Using(core.SlidingLog)})
	require.NoError(t, err)
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok\n") })
	for _, c := range []struct {
		name string
		l    *core.Limiter
		want []int
	}{
		{"limiter", l, []int{200, 429}},
		{"nil limiter", nil, []int{503, 503}},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(nethttp.Limit(c.l)(ok))
			defer srv.Close()
			var got []int
			for range 2 {
				resp, err := srv.Client().Get(srv.URL)
				require.NoError(t, err)
				resp.Body.Close()
				got = append(got, resp.StatusCode)
			}
			assert.Equal(t, c.want, got)
		})
	}
}
