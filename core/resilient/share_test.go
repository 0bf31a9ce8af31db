package resilient_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/internal/standin"
	"github.com/ratewindow/ratewindow/core/resilient"
)

// A cost above one policy's local share is charged as that policy's whole
// share, and as itself to the policies whose share it fits: the small
// share of one policy must not lower what the others count. Here a short
// policy (4 a second, a share of 2) meets every call of cost 5 with room
// again each second, and the long one (20 a minute, a share of 10) must
// then admit two such calls in its minute, not five.
func TestCostAboveOneShareChargesTheOthersInFull(t *testing.T) {
	for _, alg := range []core.Algorithm{core.FixedWindow, core.SlidingWindow, core.SlidingLog} {
		t.Run(alg.String(), func(t *testing.T) {
			ps := policies(
				core.Per(4, time.Second).Using(alg).Named("short"),
				core.Per(20, time.Minute).Using(alg).Named("long"),
			)
			d := newDouble()
			d.down.Store(true)
			s, err := resilient.New(d, resilient.WithFallback(2))
			require.NoError(t, err)
			admitted := 0
			for i := range 60 {
				r, err := s.Take(context.Background(), "k", ps, 5, t0.Add(time.Duration(i)*time.Second))
				require.ErrorIs(t, err, standin.ErrFallback)
				if r.States[0].Allowed && r.States[1].Allowed {
					admitted++
				}
			}
			assert.Equal(t, 2, admitted, "calls of cost 5 admitted in a minute by a local share of 10")
		})
	}
}

// Calls of both kinds made together on one key stay all-or-nothing: what
// is left of each share is exactly that share less the charges of the
// calls admitted, each policy charged its own part (a call of cost 5 takes
// the short policy's whole share of 2, and 5 of the long one's 10).
func TestMixedCostsTogetherStayAllOrNothing(t *testing.T) {
	ps := policies(
		core.Per(4, time.Second).Named("short"),
		core.Per(20, time.Minute).Named("long"),
	)
	for range 20 {
		d := newDouble()
		d.down.Store(true)
		s, err := resilient.New(d, resilient.WithFallback(2))
		require.NoError(t, err)
		var wg sync.WaitGroup
		var big, small atomic.Int64
		for g := range 8 {
			wg.Go(func() {
				cost, n := int64(1), &small
				if g%2 == 0 {
					cost, n = 5, &big
				}
				r, _ := s.Take(context.Background(), "k", ps, cost, t0)
				if r.States[0].Allowed && r.States[1].Allowed {
					n.Add(1)
				}
			})
		}
		wg.Wait()
		r, err := s.Peek(context.Background(), "k", ps, 1, t0)
		require.ErrorIs(t, err, standin.ErrFallback)
		b, m := big.Load(), small.Load()
		assert.Equal(t, 2-(2*b+m), r.States[0].Remaining, "short: %d of cost 5 and %d of cost 1 admitted", b, m)
		assert.Equal(t, 10-(5*b+m), r.States[1].Remaining, "long: %d of cost 5 and %d of cost 1 admitted", b, m)
	}
}
