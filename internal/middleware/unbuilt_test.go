package middleware

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

// A Limiter that core.NewLimiter did not make (a zero one) cannot decide:
// given as the limiter it is refused at construction, and chosen by a
// limiter func it is treated as no limiter, never as a store failure that
// fails open.
func TestUnbuiltLimiterIsNoLimiter(t *testing.T) {
	_, err := FromOptions(new(core.Limiter), nil)
	require.ErrorIs(t, err, core.ErrInvalidConfig)
	assert.Contains(t, err.Error(), "NewLimiter")

	var events []ratewindow.Event
	f, err := FromOptions(nil, []ratewindow.Option{
		ratewindow.WithLimiterFunc(func(keyfuncs.Request, string) (*core.Limiter, error) { return new(core.Limiter), nil }),
		ratewindow.WithOnDecision(func(ev ratewindow.Event) { events = append(events, ev) }),
	})
	require.NoError(t, err)
	r := newRecorder("a")
	assert.False(t, f.Handle(r), "passed on a limiter that cannot decide")
	require.Len(t, events, 1)
	assert.Equal(t, ratewindow.UnclassifiedRejected, events[0].Outcome)
	assert.ErrorIs(t, events[0].Err, ratewindow.ErrNoLimiter)
	assert.ErrorIs(t, events[0].Err, core.ErrInvalidConfig, "a mistake in the set-up, not the client's")
}
