package nethttp_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/internal/clocktest"
	"github.com/ratewindow/ratewindow/nethttp"
)

// headerMap is a ResponseWriter that keeps only its header map.
type headerMap struct{ h http.Header }

func (w *headerMap) Header() http.Header         { return w.h }
func (w *headerMap) Write(b []byte) (int, error) { return len(b), nil }
func (w *headerMap) WriteHeader(int)             {}

// TestAllocsPerRequest: in steady state on a hot key (a window and more of
// traffic already seen, one request per millisecond or faster), the
// middleware allocates the block of field values and the RateLimit value,
// whatever the algorithm: the returning client's key comes from the key
// cache, and the sliding log's records are reused, not grown.
func TestAllocsPerRequest(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	for _, alg := range []core.Algorithm{core.FixedWindow, core.SlidingWindow, core.SlidingLog} {
		clock := clocktest.New(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
		l, err := core.NewLimiter(memory.New(), []core.Policy{core.PerSecond(1_000_000_000).Using(alg)}, core.WithClock(clock))
		require.NoError(t, err)
		mw, err := nethttp.New(l)
		require.NoError(t, err)
		h := mw(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = "192.0.2.1:1234"
		w := &headerMap{h: http.Header{}}
		i := 0
		serve := func() {
			clear(w.h)
			h.ServeHTTP(w, r)
			if i++; i%4 == 0 {
				clock.Advance(time.Millisecond)
			}
		}
		for range 3 * 4 * 1000 { // three windows
			serve()
		}
		require.NotEmpty(t, w.h.Get("RateLimit"))
		allocs := testing.AllocsPerRun(4000, serve)
		t.Logf("%v: %.3f allocs per request", alg, allocs)
		assert.LessOrEqual(t, allocs, 2.0, alg.String())
	}
}
