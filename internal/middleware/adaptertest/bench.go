package adaptertest

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
)

// BenchLimiter is the limiter of the adapters' overhead benchmarks: the
// memory store and a limit no benchmark exhausts, so every request is a full
// admission.
func BenchLimiter(b *testing.B) *core.Limiter {
	l, err := core.NewLimiter(memory.New(), []core.Policy{core.PerHour(1_000_000_000)})
	require.NoError(b, err)
	return l
}

// BenchHandler is one row of an overhead benchmark.
type BenchHandler struct {
	Name    string
	Handler http.Handler
}

// RunOverhead runs each handler as a sub-benchmark serving GET / for one
// client address, in process. The ResponseWriter keeps only its header map,
// reset per request, so the rows differ by the middleware alone.
func RunOverhead(b *testing.B, rows ...BenchHandler) {
	for _, row := range rows {
		b.Run(row.Name, func(b *testing.B) {
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			r.RemoteAddr = "192.0.2.1:1234"
			w := &discard{h: http.Header{}}
			b.ReportAllocs()
			for b.Loop() {
				clear(w.h)
				row.Handler.ServeHTTP(w, r)
			}
		})
	}
}

// discard is a ResponseWriter that writes nothing anywhere.
type discard struct{ h http.Header }

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(b []byte) (int, error) { return len(b), nil }
func (d *discard) WriteHeader(int)             {}
