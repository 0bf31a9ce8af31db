package nethttp_test

import (
	"fmt"
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

// Wrapped around a ServeMux, where the request has no Pattern yet, the
// middleware asks the mux for the route: a real route is keyed by its
// pattern, and requests no route matches share one key per method, so a
// client sending invented paths spends one quota instead of minting a
// fresh quota and a store key per path.
func TestRouteAroundServeMux(t *testing.T) {
	l, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(1).Using(core.FixedWindow)})
	require.NoError(t, err)
	var keys, routes []string
	limit, err := nethttp.New(l, ratewindow.WithKeyFunc(keyfuncs.Route),
		ratewindow.WithOnDecision(func(ev ratewindow.Event) {
			keys = append(keys, ev.Key)
			routes = append(routes, ev.Route)
		}))
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /items/{id}", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok\n") })
	h := limit(mux)
	status := func(method, path string) int {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(method, path, nil))
		return w.Code
	}

	assert.Equal(t, http.StatusNotFound, status(http.MethodGet, "/nope-0"))
	for i := 1; i <= 5; i++ {
		assert.Equal(t, http.StatusTooManyRequests, status(http.MethodGet, fmt.Sprintf("/nope-%d", i)),
			"an unknown path is no fresh quota")
	}
	assert.Equal(t, http.StatusOK, status(http.MethodGet, "/items/1"), "a real route keeps its own quota")
	assert.Equal(t, http.StatusTooManyRequests, status(http.MethodGet, "/items/2"), "one quota per route, not per path")
	assert.Equal(t, http.StatusMethodNotAllowed, status(http.MethodPost, "/items/1"), "a 405 is unmatched too")
	u := "route:GET (unmatched)"
	assert.Equal(t, []string{u, u, u, u, u, u, "route:GET /items/{id}", "route:GET /items/{id}", "route:POST (unmatched)"}, keys)
	assert.Equal(t, []string{"", "", "", "", "", "", "/items/{id}", "/items/{id}", ""}, routes)
}

// Around a handler that is not a ServeMux, the middleware cannot tell
// whether a route matches: Route keys by the URL path.
func TestRouteAroundOtherHandler(t *testing.T) {
	limit, keys := keyedByRoute(t)
	h := limit(http.NotFoundHandler())
	for _, p := range []string{"/a", "/b"} {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, p, nil))
	}
	assert.Equal(t, []string{"route:GET /a", "route:GET /b"}, *keys)
}

// Wrapped around a ServeMux that an outer mux serves under a subtree, the
// route is the inner mux's pattern, the one that serves the request, not
// the outer subtree's (which the request's Pattern holds).
func TestRouteAroundNestedServeMux(t *testing.T) {
	limit, keys := keyedByRoute(t)
	inner := http.NewServeMux()
	inner.HandleFunc("GET /api/items/{id}", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok\n") })
	inner.HandleFunc("GET /api/orders/{id}", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok\n") })
	outer := http.NewServeMux()
	outer.Handle("/api/", limit(inner))
	for _, p := range []string{"/api/items/1", "/api/orders/1", "/api/nope"} {
		w := httptest.NewRecorder()
		outer.ServeHTTP(w, httptest.NewRequest(http.MethodGet, p, nil))
		assert.NotEqual(t, http.StatusTooManyRequests, w.Code, p)
	}
	assert.Equal(t, []string{"route:GET /api/items/{id}", "route:GET /api/orders/{id}", "route:GET (unmatched)"}, *keys)
}

// A CONNECT request with a path one slash short of a subtree pattern with
// a wildcard is redirected by the mux, which reports the redirect's path
// (not a pattern) for CONNECT alone: it must not become the route, or a
// client would mint a fresh key per path.
func TestRouteOfConnectRedirect(t *testing.T) {
	limit, keys := keyedByRoute(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/users/{id}/", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok\n") })
	h := limit(mux)
	status := func(path string) int {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodConnect, path, nil))
		return w.Code
	}
	assert.Equal(t, http.StatusTemporaryRedirect, status("/users/1"))
	assert.Equal(t, http.StatusTooManyRequests, status("/users/2"), "an invented path is no fresh quota")
	assert.Equal(t, http.StatusTooManyRequests, status("/users/3%2F"), "nor an escaped slash")
	assert.Equal(t, http.StatusOK, status("/users/1/"), "the route keeps its own quota")
	u := "route:CONNECT (unmatched)"
	assert.Equal(t, []string{u, u, u, "route:CONNECT /users/{id}/"}, *keys)
}

// keyedByRoute returns middleware keyed by keyfuncs.Route, on a limit of
// one request a minute, and the keys it asked the limiter about, in order.
func keyedByRoute(t *testing.T) (func(http.Handler) http.Handler, *[]string) {
	t.Helper()
	l, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(1).Using(core.FixedWindow)})
	require.NoError(t, err)
	keys := new([]string)
	limit, err := nethttp.New(l, ratewindow.WithKeyFunc(keyfuncs.Route),
		ratewindow.WithOnDecision(func(ev ratewindow.Event) { *keys = append(*keys, ev.Key) }))
	require.NoError(t, err)
	return limit, keys
}
