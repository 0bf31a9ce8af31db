package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
)

// runLongLog fills a sliding log with 1500 requests, one a millisecond:
// a log holds every request admitted within its window, however many, and
// lets each go exactly a window after it came, oldest first.
func runLongLog(t *testing.T, s core.Store) {
	ctx := context.Background()
	const n = 1500
	ps := validated(t, core.Per(n, 2*time.Second).Using(core.SlidingLog))
	take := func(now, cost int64) core.PolicyState {
		t.Helper()
		r, err := s.Take(ctx, "long", ps, cost, at(now))
		require.NoError(t, err)
		return r.States[0]
	}
	for i := int64(0); i < n; i++ {
		st := take(i, 1)
		require.True(t, st.Allowed, "request %d of %d", i, n)
		require.Equal(t, n-1-i, st.Remaining, "request %d of %d", i, n)
	}
	st := take(n, 1)
	require.False(t, st.Allowed, "request %d", n+1)
	require.Equal(t, 500*time.Millisecond, st.RetryAfter, "until the first request leaves")
	// At 2000 ms the first request has left, the second not yet.
	require.True(t, take(2000, 1).Allowed)
	st = take(2000, 1)
	require.False(t, st.Allowed)
	require.Equal(t, time.Millisecond, st.RetryAfter)
	// At 2700 ms the requests of 701..1499 ms and 2000 ms are left: 800.
	st = take(2700, 700)
	require.True(t, st.Allowed, "700 units at 2700ms")
	require.Zero(t, st.Remaining)
	st = take(2700, 1)
	require.False(t, st.Allowed)
	require.Equal(t, time.Millisecond, st.RetryAfter, "until the request of 701ms leaves")
}
