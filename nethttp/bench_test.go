package nethttp

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
)

// discard is a ResponseWriter that keeps only its header map, reset per
// request, so the benchmark measures the middleware, not a recorder.
type discard struct{ h http.Header }

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(b []byte) (int, error) { return len(b), nil }
func (d *discard) WriteHeader(int)             {}

// BenchmarkOverhead compares a bare handler with the same handler behind
// the middleware on the memory store; the difference is the overhead. The
// hooked variant adds an OnDecision hook (the Event is a value: no
// allocation, but two clock reads for the latency).
func BenchmarkOverhead(b *testing.B) {
	bare := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	l, err := core.NewLimiter(memory.New(), []core.Policy{core.PerHour(1_000_000_000)})
	require.NoError(b, err)
	mw, err := New(l)
	require.NoError(b, err)
	var seen int
	hooked, err := New(l, ratewindow.WithOnDecision(func(ev ratewindow.Event) { seen += int(ev.Outcome) }))
	require.NoError(b, err)
	for _, c := range []struct {
		name string
		h    http.Handler
	}{{"bare", bare}, {"ratewindow", mw(bare)}, {"ratewindow+hook", hooked(bare)}} {
		b.Run(c.name, func(b *testing.B) {
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			r.RemoteAddr = "192.0.2.1:1234"
			w := &discard{h: http.Header{}}
			b.ReportAllocs()
			for b.Loop() {
				clear(w.h)
				c.h.ServeHTTP(w, r)
			}
		})
	}
}
