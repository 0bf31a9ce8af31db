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

// takeOnly is a Store with only the core.Store methods: a Limiter on it
// cannot see the memory store's TakeInPlace and goes through Take and Peek.
type takeOnly struct{ core.Store }

// A Limiter with one policy on the memory store writes the store's answer
// in place; it must decide exactly as the Take/Peek path does.
func TestInPlacePathMatchesTake(t *testing.T) {
	ctx := context.Background()
	for _, alg := range []core.Algorithm{core.FixedWindow, core.SlidingWindow, core.SlidingLog} {
		t.Run(alg.String(), func(t *testing.T) {
			policies := []core.Policy{core.Per(7, 2*time.Second).Using(alg).Named("p")}
			clock := core.NewFakeClock(time.UnixMilli(1_700_000_000_123))
			inPlace, err := core.NewLimiter(memory.New(), policies, core.WithClock(clock))
			require.NoError(t, err)
			viaTake, err := core.NewLimiter(takeOnly{memory.New()}, policies, core.WithClock(clock))
			require.NoError(t, err)

			rng := rand.New(rand.NewPCG(1, uint64(alg)))
			keys := []string{"a", "b", "203.0.113.7"}
			allowed, denied := 0, 0
			for i := range 3000 {
				key, cost := keys[rng.IntN(len(keys))], 1+rng.Int64N(3)
				call := func(l *core.Limiter) (core.Decision, error) {
					if i%5 == 0 {
						return l.Peek(ctx, key, cost)
					}
					return l.AllowN(ctx, key, cost)
				}
				want, err := call(viaTake)
				require.NoError(t, err)
				got, err := call(inPlace)
				require.NoError(t, err)
				require.Equal(t, want, got, "call %d: key %q cost %d at %v", i, key, cost, clock.Now())
				if got.Allowed {
					allowed++
				} else {
					denied++
				}
				clock.Advance(time.Duration(rng.IntN(150)) * time.Millisecond)
			}
			// The sequence must exercise both answers.
			require.Greater(t, allowed, 300)
			require.Greater(t, denied, 300)
		})
	}
}
