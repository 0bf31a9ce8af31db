package nethttp_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/keyfuncs"
	"github.com/ratewindow/ratewindow/nethttp"
)

// failingStore fails every call.
type failingStore struct{ core.Store }

func (failingStore) Take(context.Context, string, []core.Policy, int64, time.Time) (core.Result, error) {
	return core.Result{}, errors.New("down")
}

// publicCache marks every response cacheable by shared caches, as a
// middleware for a site behind a CDN may.
func publicCache(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=600")
		next.ServeHTTP(w, r)
	})
}

// A response the middleware stops is about one client at one moment: a
// shared cache that kept a 429 would deny every client for as long as it
// keeps it. Whatever an earlier middleware set, the 429, the fail-closed
// 503 and the unclassified 400 say no-store, the default handlers' and a
// user's own alike; a handler may still set its own.
func TestStoppedResponsesAreNotCached(t *testing.T) {
	ok := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	send := func(h http.Handler) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/", nil))
		return w
	}
	limited := func(s core.Store, opts ...ratewindow.Option) http.Handler {
		l, err := core.NewLimiter(s, []core.Policy{core.PerMinute(1)})
		require.NoError(t, err)
		limit, err := nethttp.New(l, opts...)
		require.NoError(t, err)
		return publicCache(limit(ok))
	}
	custom := ratewindow.WithDenyHandler(func(w ratewindow.Response, _ keyfuncs.Request, _ ratewindow.Event) {
		w.Send(http.StatusTooManyRequests, []byte("slow down\n"))
	})
	own := ratewindow.WithDenyHandler(func(w ratewindow.Response, _ keyfuncs.Request, _ ratewindow.Event) {
		w.SetHeader("Cache-Control", "private, max-age=1")
		w.Send(http.StatusTooManyRequests, nil)
	})
	noKey := ratewindow.WithKeyFunc(func(keyfuncs.Request) (string, error) { return "", keyfuncs.ErrNoKey })

	for name, tc := range map[string]struct {
		h      http.Handler
		status int
		want   string
	}{
		"default 429":     {limited(memory.New()), http.StatusTooManyRequests, "no-store"},
		"custom 429":      {limited(memory.New(), custom), http.StatusTooManyRequests, "no-store"},
		"handler's own":   {limited(memory.New(), own), http.StatusTooManyRequests, "private, max-age=1"},
		"fail-closed 503": {limited(failingStore{memory.New()}, ratewindow.WithFailClosed()), http.StatusServiceUnavailable, "no-store"},
		"unclassified":    {limited(memory.New(), noKey), http.StatusBadRequest, "no-store"},
	} {
		t.Run(name, func(t *testing.T) {
			if tc.status == http.StatusTooManyRequests {
				first := send(tc.h)
				require.Equal(t, http.StatusOK, first.Code)
				assert.Equal(t, "public, max-age=600", first.Header().Get("Cache-Control"), "an allowed response is the handler's to cache")
			}
			w := send(tc.h)
			require.Equal(t, tc.status, w.Code)
			assert.Equal(t, tc.want, w.Header().Get("Cache-Control"))
		})
	}
}
