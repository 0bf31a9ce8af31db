package memory_test

import (
	"testing"

	"github.com/ratewindow/ratewindow/core/internal/oracle"
	"github.com/ratewindow/ratewindow/core/memory"
)

// FuzzStore replays arbitrary call sequences on the memory store and on
// the conformance suite's oracle: every decision must match. The seeds run
// as ordinary tests; `go test -fuzz FuzzStore ./core/memory` explores.
func FuzzStore(f *testing.F) {
	oracle.AddSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		oracle.CheckSequence(t, memory.New(memory.WithShards(2)), data)
	})
}
