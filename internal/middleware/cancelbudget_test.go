package middleware

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
)

// stalled is a store that never answers: each call waits until its
// context is done and returns the context's error, as a stalled Redis does
// behind a client that honours the context.
type stalled struct{}

func (stalled) Take(ctx context.Context, _ string, _ []core.Policy, _ int64, _ time.Time) (core.Result, error) {
	<-ctx.Done()
	return core.Result{}, ctx.Err()
}

func (s stalled) Peek(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
	return s.Take(ctx, key, ps, cost, now)
}

func (stalled) Reset(ctx context.Context, _ string, _ []core.Policy) error {
	<-ctx.Done()
	return ctx.Err()
}

// WithTimeout bounds the wait for the store of a request whose client
// cancelled it too: the store is asked again, detached from the
// cancellation, with what is left of the bound, not with a new one. A
// client that gives up late in a stalled call must not hold the request
// (and the server's goroutine) for up to twice the bound.
func TestCancelledRequestKeepsTheTimeout(t *testing.T) {
	const timeout = 2 * time.Second
	l, err := core.NewLimiter(stalled{}, []core.Policy{core.PerMinute(10)})
	require.NoError(t, err)
	var events []ratewindow.Event
	f, err := FromOptions(l, []ratewindow.Option{
		ratewindow.WithTimeout(timeout),
		ratewindow.WithOnDecision(func(ev ratewindow.Event) { events = append(events, ev) }),
	})
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	gone := newRecorder("a")
	gone.Ctx = ctx
	// The client gives up late in the stalled call.
	stop := time.AfterFunc(timeout*9/10, cancel)
	defer stop.Stop()

	start := time.Now()
	passed := f.Handle(gone)
	took := time.Since(start)

	assert.True(t, passed, "a store that ran out of time fails open")
	require.Len(t, events, 1, "one event for one request")
	assert.Equal(t, ratewindow.StoreErrorPassed, events[0].Outcome)
	assert.ErrorIs(t, events[0].Err, context.DeadlineExceeded)
	// Without the cancellation the request would have waited the bound;
	// the margin is generous, far from the 1.9 bounds of two full waits.
	assert.Less(t, took, timeout*3/2, "the request waited %v for a store bounded to %v", took, timeout)
}
