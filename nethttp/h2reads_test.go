package nethttp_test

import (
	"crypto/tls"
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/internal/h2test"
	"github.com/ratewindow/ratewindow/keyfuncs"
	"github.com/ratewindow/ratewindow/nethttp"
)

// One request read over HTTP/1.1 and over HTTP/2 gives the key funcs the
// same peer, method, path, route and host, and the mux the same answer: a
// client gains no quota by switching protocol, and WithSkip by path sees
// the same path.
func TestHTTP2ReadsLikeHTTP1(t *testing.T) {
	l, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(1000)})
	require.NoError(t, err)
	var mu sync.Mutex
	var keys, paths []string
	limit, err := nethttp.New(l,
		ratewindow.WithKeyFunc(keyfuncs.Compose("|", keyfuncs.RemoteIP, keyfuncs.Route, keyfuncs.Header("Host", nil))),
		ratewindow.WithSkip(func(r keyfuncs.Request) bool {
			mu.Lock()
			paths = append(paths, r.Method()+" "+r.Path())
			mu.Unlock()
			return false
		}),
		ratewindow.WithOnDecision(func(ev ratewindow.Event) {
			mu.Lock()
			keys = append(keys, ev.Key)
			mu.Unlock()
		}))
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /items/{id}", func(http.ResponseWriter, *http.Request) {})
	srv := h2test.Serve(t, limit(mux))

	requests := [][2]string{
		{"GET", "/items/1"}, {"HEAD", "/items/2"}, {"GET", "/items/a%2Fb"},
		{"GET", "/items//3"}, {"GET", "/nothing"}, {"POST", "/items/1"}, {"PROPFIND", "/items/1"},
	}
	h1 := &http.Client{
		Transport: &http.Transport{
			TLSClientConfig: srv.Client().Transport.(*http.Transport).TLSClientConfig.Clone(),
			TLSNextProto:    map[string]func(string, *tls.Conn) http.RoundTripper{}, // HTTP/1.1 only
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	t.Cleanup(h1.CloseIdleConnections)
	var h1Codes, h2Codes []int
	for _, rq := range requests {
		req, err := http.NewRequest(rq[0], srv.URL+rq[1], nil)
		require.NoError(t, err)
		req.Host = "A.Example:8443"
		resp, err := h1.Do(req)
		require.NoError(t, err)
		require.Equal(t, 1, resp.ProtoMajor)
		resp.Body.Close()
		h1Codes = append(h1Codes, resp.StatusCode)
	}
	mu.Lock()
	h1Keys, h1Paths := keys, paths
	keys, paths = nil, nil
	mu.Unlock()

	c := h2test.Dial(t, srv)
	for _, rq := range requests {
		// A host field beside :authority, which HTTP/1.1 cannot send
		// (its Host field is the authority), names no other host.
		h2Codes = append(h2Codes, c.Do(t, ":method", rq[0], ":scheme", "https", ":authority", "A.Example:8443", ":path", rq[1],
			"host", "elsewhere.example"))
	}
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, h1Codes, h2Codes)
	assert.Equal(t, h1Paths, paths)
	assert.Equal(t, h1Keys, keys)
	require.Len(t, keys, len(requests))
	assert.Equal(t, "cmp:ip:127.0.0.1|route:GET /items/{id}|hdr:host:a.example", keys[0])
	assert.Equal(t, keys[0], keys[1], "HEAD spends the GET route's quota")
}
