package memory_test

import (
	"testing"

	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/core/storetest"
)

// FuzzStore replays arbitrary call sequences on the memory store and on
// the conformance suite's oracle: every decision must match. The seeds run
// as ordinary tests; `go test -fuzz FuzzStore ./core/memory` explores.
func FuzzStore(f *testing.F) {
	f.Add([]byte{0})
	f.Add([]byte{0, 0, 3, 9, 10, 0, 1, 10, 0, 2, 10, 0, 3, 200, 1, 1, 250, 2, 0, 0, 0})
	f.Add([]byte{2, 1, 7, 20, 2, 2, 5, 0, 7, 39, 5, 64, 1, 5, 128, 2, 5, 192, 0, 63, 1, 1})
	f.Add([]byte("the sliding log, the fixed window and the sliding counter all agree with the oracle"))
	f.Fuzz(func(t *testing.T, data []byte) {
		storetest.CheckSequence(t, memory.New(memory.WithShards(2)), data)
	})
}
