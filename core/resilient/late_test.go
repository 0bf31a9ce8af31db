package resilient_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/core/resilient"
	"github.com/ratewindow/ratewindow/internal/clocktest"
)

// stalling is a primary whose first call stalls until released and then
// fails, as a call to a Redis that stopped answering times out; every
// other call fails at once.
type stalling struct {
	core.Store
	first            atomic.Bool
	entered, release chan struct{}
}

func (p *stalling) Take(context.Context, string, []core.Policy, int64, time.Time) (core.Result, error) {
	if p.first.CompareAndSwap(false, true) {
		p.entered <- struct{}{}
		<-p.release
	}
	return core.Result{}, errors.New("stalled")
}

// A call the primary held longer than a window reaches the fallback with
// the instant it began, a window or more before the calls that came since.
// The fallback must not take it for a clock stepped back, moving the key's
// local counts into the past: the calls at the true time would then find
// them in a finished window and get a second quota.
func TestLateCallGivesTheFallbackNoSecondQuota(t *testing.T) {
	for _, alg := range []core.Algorithm{core.FixedWindow, core.SlidingWindow, core.SlidingLog} {
		t.Run(alg.String(), func(t *testing.T) {
			const limit = 10
			clock := clocktest.New(t0)
			p := &stalling{Store: memory.New(), entered: make(chan struct{}), release: make(chan struct{})}
			s, err := resilient.New(p, resilient.WithFailureThreshold(1), resilient.WithFallback(1),
				clocktest.Option[resilient.Option](clock))
			require.NoError(t, err)
			l, err := core.NewLimiter(s, policies(core.Per(limit, time.Second).Using(alg)), core.WithClock(clock))
			require.NoError(t, err)
			allow := func() bool {
				d, err := l.Allow(context.Background(), "k")
				require.NoError(t, err)
				require.True(t, d.Fallback)
				return d.Allowed
			}

			lateAllowed := make(chan bool, 1)
			go func() { lateAllowed <- allow() }() // reads the clock at t0, then stalls
			<-p.entered
			clock.Advance(3 * time.Second)
			admitted := 0
			for range limit {
				if allow() {
					admitted++
				}
			}
			close(p.release)
			if <-lateAllowed {
				admitted++
			}
			for range limit {
				if allow() {
					admitted++
				}
			}
			assert.Equal(t, limit, admitted, "admitted within one second of the fallback's time")
		})
	}
}
