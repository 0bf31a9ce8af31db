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
	storetest.AddSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		storetest.CheckSequence(t, memory.New(memory.WithShards(2)), data)
	})
}
