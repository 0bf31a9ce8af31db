package resilient_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/core/resilient"
)

// Calls for one key from many goroutines, at instants out of order within
// a window, under two policy sets sharing a policy, then a clock step back
// by more than a window: once that call has reached the primary, no denial
// remembered during the traffic is still answered from the cache.
func TestDenyCacheStepBackAfterConcurrentTraffic(t *testing.T) {
	ctx := context.Background()
	a := core.Per(3, time.Second).Using(core.FixedWindow).Named("a")
	setA := policies(a)
	setB := policies(a, core.Per(2, time.Hour).Using(core.FixedWindow).Named("b"))
	mem := memory.New()
	s, err := resilient.New(mem, resilient.WithDenyCache())
	require.NoError(t, err)

	const goroutines, calls = 8, 200
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range calls {
				// Instants in [100s, 101s), not in order.
				at := t0.Add(100*time.Second + time.Duration((g*37+i*101)%1000)*time.Millisecond)
				ps := setA
				if (g+i)%3 == 0 {
					ps = setB
				}
				var err error
				switch i % 4 {
				case 0:
					_, err = s.Peek(ctx, "k", ps, 1, at)
				case 1:
					_, err = s.Take(ctx, "k", ps, 2, at)
				default:
					_, err = s.Take(ctx, "k", ps, 1, at)
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	last := t0.Add(100*time.Second + 999*time.Millisecond)
	r, err := s.Take(ctx, "k", setA, 1, last)
	require.NoError(t, err)
	require.False(t, allowed(r, 1), "a is spent in the window [100s, 101s)")

	// The clock steps back to 1s: b denies, and a's count moves to [1s, 2s).
	r, err = s.Take(ctx, "k", setB, 1, t0.Add(time.Second))
	require.NoError(t, err)
	require.False(t, allowed(r, 2), "b is spent for the hour")

	// Back at 100.999s, a's window [1s, 2s) has ended: the primary admits.
	r, err = mem.Peek(ctx, "k", setA, 1, last)
	require.NoError(t, err)
	require.True(t, allowed(r, 1), "the primary at the last instant")
	r, err = s.Take(ctx, "k", setA, 1, last)
	require.NoError(t, err)
	assert.True(t, allowed(r, 1), "a denial from before the step back was answered from the cache")
}
