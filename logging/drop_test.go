package logging

import (
	"bytes"
	"log/slog"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
)

// A Hook dropped in the middle of a flood, with records held back and its
// timers armed, is garbage once they have fired: it needs no Close.
func TestDroppedHookIsCollected(t *testing.T) {
	var collected atomic.Bool
	func() {
		h := newHook(slog.New(slog.NewJSONHandler(&bytes.Buffer{}, nil)),
			WithDenials(), WithDenialEvery(10*time.Millisecond), WithErrorEvery(10*time.Millisecond))
		runtime.AddCleanup(h, func(b *atomic.Bool) { b.Store(true) }, &collected)
		for range 100 {
			for _, o := range []ratewindow.Outcome{ratewindow.WouldDeny, ratewindow.Denied, ratewindow.StoreErrorPassed,
				ratewindow.StoreErrorRejected, ratewindow.UnclassifiedPassed, ratewindow.UnclassifiedRejected} {
				h.log(ratewindow.Event{Outcome: o, Key: "k"})
			}
		}
	}()
	require.Eventually(t, func() bool {
		runtime.GC()
		return collected.Load()
	}, 10*time.Second, 20*time.Millisecond)
}
