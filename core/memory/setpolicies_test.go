package memory_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/internal/clocktest"
)

// Goroutines contend for one key (so it gets a hot cell) while another
// changes the policy's Limit back and forth with SetPolicies, on a clock
// that stands still. Each admission is checked against the limit its call
// read, so no more than the larger limit is admitted, and every unit
// admitted is counted: once the calls are over, the key has exactly the
// larger limit minus what was admitted left.
func TestSetPoliciesDuringContention(t *testing.T) {
	const lo, hi = 40, 100
	for _, alg := range []core.Algorithm{core.FixedWindow, core.SlidingWindow, core.SlidingLog} {
		t.Run(alg.String(), func(t *testing.T) {
			clock := clocktest.New(t0.Add(300 * time.Microsecond))
			policy := func(limit int64) core.Policy { return core.Per(limit, time.Minute).Named("q").Using(alg) }
			l, err := core.NewLimiter(memory.New(), []core.Policy{policy(hi)}, core.WithClock(clock))
			require.NoError(t, err)
			ctx := context.Background()
			var (
				admitted atomic.Int64
				wg       sync.WaitGroup
				stop     atomic.Bool
			)
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; !stop.Load(); i++ {
					limit := int64(lo)
					if i%2 == 1 {
						limit = hi
					}
					if err := l.SetPolicies(policy(limit)); err != nil {
						t.Error(err)
						return
					}
				}
			}()
			var callers sync.WaitGroup
			for range 8 {
				callers.Add(1)
				go func() {
					defer callers.Done()
					for range 400 {
						d, err := l.AllowN(ctx, "k", 1)
						if err != nil {
							t.Error(err)
							return
						}
						if d.Allowed {
							admitted.Add(1)
						}
					}
				}()
			}
			callers.Wait()
			stop.Store(true)
			wg.Wait()
			require.NoError(t, l.SetPolicies(policy(hi)))
			n := admitted.Load()
			assert.LessOrEqual(t, n, int64(hi))
			assert.GreaterOrEqual(t, n, int64(lo), "3,200 calls against a limit of at least %d", lo)
			d, err := l.Peek(ctx, "k", 1)
			require.NoError(t, err)
			assert.Equal(t, hi-n, d.Remaining, "every admitted unit is counted")
		})
	}
}
