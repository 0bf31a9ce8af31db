package memory_test

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
)

// Requests at random real instants (microseconds apart, so most fall
// between milliseconds) and of random weights: no real interval shorter
// than the window may hold more than the limit in admitted units.
func TestSlidingLogExactInRealTime(t *testing.T) {
	const limit, window = 50, time.Second
	ps := policies(t, core.Per(limit, window).Using(core.SlidingLog))
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(5, 14))
	s := memory.New()
	type admission struct {
		at   time.Time
		cost int64
	}
	var admitted []admission
	now := t0
	for range 20_000 {
		now = now.Add(time.Duration(rng.IntN(9000)) * time.Microsecond)
		cost := 1 + rng.Int64N(3)
		r, err := s.Take(ctx, "k", ps, cost, now)
		require.NoError(t, err)
		if !r.States[0].Allowed {
			continue
		}
		admitted = append(admitted, admission{now, cost})
		// The units admitted in (now − W, now]: the window ending here.
		sum := int64(0)
		for i := len(admitted) - 1; i >= 0 && now.Sub(admitted[i].at) < window; i-- {
			sum += admitted[i].cost
		}
		require.LessOrEqual(t, sum, int64(limit), "units admitted within %v before %v", window, now)
	}
	require.Greater(t, len(admitted), 1000)
}
