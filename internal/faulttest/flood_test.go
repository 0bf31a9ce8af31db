package faulttest

import (
	"context"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
)

// TestCappedFloodMemoryIsGivenBack: a memory store with WithMaxKeys, the
// setup the README recommends against a flood of distinct keys, gives the
// flood's memory back once the flood has expired and ordinary traffic
// goes on, under a mix of a counter and a sliding log.
//
// Not parallel: it measures the heap of the whole test binary.
func TestCappedFloodMemoryIsGivenBack(t *testing.T) {
	ctx := context.Background()
	const capKeys, flood = 100_000, 300_000
	before := heapInUse()
	s := memory.New(memory.WithMaxKeys(capKeys))
	ps := []core.Policy{core.PerSecond(10).Using(core.FixedWindow), core.PerSecond(5).Named("log").Using(core.SlidingLog)}
	t0 := time.Now().Truncate(time.Hour)
	for i := range flood {
		r, err := s.Take(ctx, "flood-"+strconv.Itoa(i), ps, 1, t0)
		require.NoError(t, err)
		require.True(t, r.States[0].Allowed && r.States[1].Allowed, "a new key is admitted")
	}
	peak := heapInUse()
	// The flood is over: a few clients come and go.
	now := t0.Add(time.Hour)
	for i := range 50_000 {
		_, err := s.Take(ctx, "after-"+strconv.Itoa(i%5000), ps, 1, now)
		require.NoError(t, err)
		if i%100 == 0 {
			now = now.Add(time.Second)
		}
	}
	after := heapInUse()
	t.Logf("heap in use: before %d KB, at the peak %d KB, after %d KB", before>>10, peak>>10, after>>10)
	grew, kept := int64(peak)-int64(before), int64(after)-int64(before)
	require.Positive(t, grew)
	assert.Less(t, kept, grew/4, "most of the flood's memory is given back")
	runtime.KeepAlive(s)
}
