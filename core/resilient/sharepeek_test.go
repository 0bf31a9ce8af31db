package resilient_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/internal/standin"
	"github.com/ratewindow/ratewindow/core/resilient"
)

// On the fallback, a Peek of a cost above one policy's local share, not
// the other's, answers what the Take that follows decides, policy by
// policy, and charges nothing: Peeks repeated leave the shares whole, and
// once a Take has used the short share up, Peek and Take both deny.
func TestPeekOfCostAboveOneShareAnswersAsTake(t *testing.T) {
	ps := policies(
		core.Per(4, time.Second).Named("short"), // a local share of 2
		core.Per(20, time.Minute).Named("long"), // a local share of 10
	)
	d := newDouble()
	d.down.Store(true)
	s, err := resilient.New(d, resilient.WithFallback(2))
	require.NoError(t, err)
	ctx := context.Background()
	for range 3 {
		p, err := s.Peek(ctx, "k", ps, 5, t0)
		require.ErrorIs(t, err, standin.ErrFallback)
		assert.True(t, p.States[0].Allowed && p.States[1].Allowed, "Peek on whole shares")
		assert.Equal(t, []int64{2, 10}, []int64{p.States[0].Remaining, p.States[1].Remaining}, "a Peek charges nothing")
	}
	r, err := s.Take(ctx, "k", ps, 5, t0)
	require.ErrorIs(t, err, standin.ErrFallback)
	assert.True(t, r.States[0].Allowed && r.States[1].Allowed, "the Take the Peek foretold")
	assert.Equal(t, []int64{0, 5}, []int64{r.States[0].Remaining, r.States[1].Remaining}, "each policy charged its own part")

	p, err := s.Peek(ctx, "k", ps, 5, t0)
	require.ErrorIs(t, err, standin.ErrFallback)
	r, err = s.Take(ctx, "k", ps, 5, t0)
	require.ErrorIs(t, err, standin.ErrFallback)
	for i, name := range []string{"short", "long"} {
		assert.Equal(t, r.States[i], p.States[i], "%s: the Peek answers as the Take", name)
	}
	assert.False(t, r.States[0].Allowed, "the short share is used up")
	assert.True(t, r.States[1].Allowed, "the long one alone would admit")
	r, err = s.Peek(ctx, "k", ps, 1, t0)
	require.ErrorIs(t, err, standin.ErrFallback)
	assert.Equal(t, []int64{0, 5}, []int64{r.States[0].Remaining, r.States[1].Remaining}, "the denied Take charged neither")
}
