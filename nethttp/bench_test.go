package nethttp

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/internal/middleware/adaptertest"
)

// BenchmarkOverhead compares a bare handler with the same handler behind
// the middleware on the memory store; the difference is the overhead. The
// hooked variant adds an OnDecision hook (the Event is a value: no
// allocation, but two clock reads for the latency).
func BenchmarkOverhead(b *testing.B) {
	bare := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	l := adaptertest.BenchLimiter(b)
	mw, err := New(l)
	require.NoError(b, err)
	var seen int
	hooked, err := New(l, ratewindow.WithOnDecision(func(ev ratewindow.Event) { seen += int(ev.Outcome) }))
	require.NoError(b, err)
	// Around a ServeMux the route is looked up in the mux, once, only
	// when read: by a hook (the Event's Route) or a Route key func, not by
	// the default key func.
	mux := http.NewServeMux()
	mux.Handle("GET /{$}", bare)
	adaptertest.RunOverhead(b, adaptertest.BenchHandler{Name: "bare", Handler: bare},
		adaptertest.BenchHandler{Name: "ratewindow", Handler: mw(bare)},
		adaptertest.BenchHandler{Name: "ratewindow+hook", Handler: hooked(bare)},
		adaptertest.BenchHandler{Name: "mux", Handler: mux},
		adaptertest.BenchHandler{Name: "ratewindow(mux)", Handler: mw(mux)},
		adaptertest.BenchHandler{Name: "ratewindow+hook(mux)", Handler: hooked(mux)})
}
