package sysclock_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core/internal/sysclock"
)

func TestClockFollowsWallClock(t *testing.T) {
	var c sysclock.Clock
	prev := c.Now()
	for i := 0; i < 2000; i++ {
		before := time.Now()
		got := c.Now()
		after := time.Now()
		// Equal to the wall clock up to scheduling noise, never behind the
		// previous reading by more than a wall-clock step would explain.
		require.WithinDuration(t, before, got, 50*time.Millisecond)
		require.False(t, got.After(after.Add(50*time.Millisecond)))
		require.False(t, got.Before(prev.Add(-50*time.Millisecond)))
		prev = got
		if i%500 == 0 {
			time.Sleep(3 * time.Millisecond)
		}
	}
	n := c.Now()
	assert.Equal(t, n, n.Round(0), "no monotonic reading")
}
