package nethttp_test

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/keyfuncs"
	"github.com/ratewindow/ratewindow/nethttp"
)

// FuzzRouteAroundServeMux sends requests of any method and request target
// (as net/http's parser reads them) through a ServeMux with trailing-slash,
// wildcard and method patterns: the route is always one of the patterns
// (without its method) or "", never something the client spelled.
func FuzzRouteAroundServeMux(f *testing.F) {
	for _, seed := range [][2]string{
		{"CONNECT", "/users/1"}, {"CONNECT", "/users/3%2F"}, {"CONNECT", "/docs"},
		{"GET", "/users/1"}, {"GET", "/a/../users/2"}, {"CONNECT", "//users//4"},
		{"CONNECT", "example.com:443"}, {"GET", "/files/x/y"}, {"CONNECT", "/c/x"},
	} {
		f.Add(seed[0], seed[1])
	}
	patterns := []string{"/users/{id}/", "/files/{path...}", "/docs/", "CONNECT /c/{x}", "GET /items/{id}"}
	allowed := map[string]bool{"": true}
	mux := http.NewServeMux()
	for _, p := range patterns {
		mux.HandleFunc(p, func(http.ResponseWriter, *http.Request) {})
		_, path, ok := strings.Cut(p, " ")
		if !ok {
			path = p
		}
		allowed[path] = true
	}
	l, err := core.NewLimiter(memory.New(), []core.Policy{core.PerHour(1_000_000)})
	require.NoError(f, err)
	var route string
	limit, err := nethttp.New(l, ratewindow.WithKeyFunc(keyfuncs.Route),
		ratewindow.WithOnDecision(func(ev ratewindow.Event) { route = ev.Route }))
	require.NoError(f, err)
	h := limit(mux)
	f.Fuzz(func(t *testing.T, method, target string) {
		r, err := http.ReadRequest(bufio.NewReader(strings.NewReader(method + " " + target + " HTTP/1.1\r\nHost: example.com\r\n\r\n")))
		if err != nil {
			return // net/http's server would answer 400 before any handler
		}
		route = "unset"
		h.ServeHTTP(httptest.NewRecorder(), r)
		if !allowed[route] {
			t.Fatalf("%s %q: route %q is no pattern", method, target, route)
		}
	})
}
