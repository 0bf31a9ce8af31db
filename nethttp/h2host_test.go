package nethttp_test

import (
	"fmt"
	"io"
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

// Over HTTP/2 the host a request is for is its :authority, which net/http
// puts in Request.Host and routes by. A host field sent beside it stays in
// Request.Header, unchecked against it. Keyed by that field (one quota per
// tenant domain), a client asked for a.example with a made-up host field
// each time, was served by a.example's handler, and got a fresh quota on
// every request.
func TestHTTP2HostIsTheAuthority(t *testing.T) {
	l, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(2).Using(core.SlidingLog)})
	require.NoError(t, err)
	var mu sync.Mutex
	var keys []string
	served := 0
	limit, err := nethttp.New(l,
		ratewindow.WithKeyFunc(keyfuncs.Header("Host", nil)),
		ratewindow.WithOnDecision(func(ev ratewindow.Event) {
			mu.Lock()
			keys = append(keys, ev.Key)
			mu.Unlock()
		}))
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.HandleFunc("a.example/", func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		served++
		mu.Unlock()
		_, _ = io.WriteString(w, "a.example\n")
	})
	srv := h2test.Serve(t, limit(mux))

	c := h2test.Dial(t, srv)
	var codes []int
	for i := range 4 {
		codes = append(codes, c.Do(t, ":method", "GET", ":scheme", "https", ":authority", "a.example", ":path", "/",
			"host", fmt.Sprintf("x%d.example", i)))
	}
	// With no :authority, the host field names the host, as net/http
	// reads it.
	codes = append(codes, c.Do(t, ":method", "GET", ":scheme", "https", ":path", "/", "host", "A.Example"))

	assert.Equal(t, []int{200, 200, 429, 429, 429}, codes, "each made-up host field got a quota of its own")
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, 2, served, "a.example's handler ran more often than the limit")
	require.Len(t, keys, 5)
	for _, k := range keys {
		assert.Equal(t, "hdr:host:a.example", k)
	}
}
