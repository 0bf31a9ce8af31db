package core

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The tolerances are wide on purpose: the machines are shared and a
// goroutine can wait tens of milliseconds for a CPU. What the tests check is
// the behaviour (it follows the clock, it advances, it stops when idle and
// restarts), not a speed.
const coarseSlack = 500 * time.Millisecond

func TestCoarseClockFollowsWallClock(t *testing.T) {
	var c CoarseClock
	prev := c.Now()
	for i := 0; i < 200; i++ {
		got := c.Now()
		require.WithinDuration(t, time.Now(), got, coarseSlack)
		require.False(t, got.Before(prev.Add(-coarseSlack)))
		prev = got
		if i%50 == 0 {
			time.Sleep(2 * time.Millisecond)
		}
	}
	n := c.Now()
	require.Equal(t, n, n.Round(0), "no monotonic reading")
}

func TestCoarseClockAdvances(t *testing.T) {
	var c CoarseClock
	first := c.Now()
	require.Eventually(t, func() bool { return c.Now().Sub(first) >= 5*time.Millisecond },
		5*time.Second, time.Millisecond, "the ticking goroutine moves the reading on")
}

func TestCoarseClockStopsWhenIdleAndRestarts(t *testing.T) {
	var c CoarseClock
	c.Now()
	require.True(t, coarse.running.Load(), "the first call starts the goroutine")
	require.Eventually(t, func() bool { return !coarse.running.Load() },
		5*time.Second, 5*time.Millisecond, "no call for %d ticks stops it", coarseIdleTicks)

	// Stopped, the clock must not serve the stale reading: the next call
	// reads the system clock and starts ticking again.
	time.Sleep(50 * time.Millisecond)
	before := time.Now()
	got := c.Now()
	require.False(t, got.Before(before.Add(-20*time.Millisecond)), "a fresh reading after a restart, not the one from before the sleep")
	require.True(t, coarse.running.Load())
}
