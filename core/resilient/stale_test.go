package resilient_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/resilient"
	"github.com/ratewindow/ratewindow/internal/clocktest"
)

// gated is a primary whose calls, while held is set, wait for a value on
// their own gate and then fail, as calls to a server that froze do when
// their time runs out; other calls go to the memory store.
type gated struct {
	core.Store
	held    atomic.Bool
	entered chan chan struct{} // each held call sends its gate
}

func (g *gated) Take(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
	if g.held.Load() {
		gate := make(chan struct{})
		g.entered <- gate
		<-gate
		return core.Result{}, errDown
	}
	return g.Store.Take(ctx, key, ps, cost, now)
}

// The failures of calls that started before the breaker opened tell of
// the outage it opened for: once a probe has closed it, they must not
// count against the primary that answers again, and open it anew.
func TestFailuresFromBeforeTheOpeningDoNotReopen(t *testing.T) {
	clock := clocktest.New(t0)
	g := &gated{Store: newDouble().mem, entered: make(chan chan struct{})}
	var tr transitions
	s, err := resilient.New(g, resilient.WithFailureThreshold(2), resilient.WithOpenInterval(time.Second),
		resilient.WithOnStateChange(tr.record), clocktest.Option[resilient.Option](clock))
	require.NoError(t, err)
	ps := policies(core.Per(100, time.Minute))
	ctx := context.Background()

	g.held.Store(true)
	done := make(chan error, 4)
	gates := make([]chan struct{}, 4)
	for i := range gates {
		go func() {
			_, err := s.Take(ctx, "k", ps, 1, t0)
			done <- err
		}()
		gates[i] = <-g.entered
	}
	for _, gate := range gates[:2] {
		close(gate)
		require.ErrorIs(t, <-done, errDown)
	}
	require.Equal(t, resilient.Open, s.State(), "two failures open it")

	g.held.Store(false)
	clock.Advance(time.Second)
	_, err = s.Take(ctx, "k", ps, 1, t0)
	require.NoError(t, err, "the probe")
	require.Equal(t, resilient.Closed, s.State(), "the probe closes it")

	for _, gate := range gates[2:] {
		close(gate)
		require.ErrorIs(t, <-done, errDown)
	}
	assert.Equal(t, resilient.Closed, s.State(), "failures of calls made before it opened do not reopen it")
	_, err = s.Take(ctx, "k", ps, 1, t0)
	assert.NoError(t, err, "the primary decides")
	assert.Equal(t, []string{"closed->open", "open->half-open", "half-open->closed"}, tr.list())
}
