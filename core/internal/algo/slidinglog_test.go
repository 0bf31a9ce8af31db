package algo_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core/internal/algo"
)

// One record per request, whatever its weight; a lowered limit and a cost
// above the limit are answered, never a panic.
func TestSlidingLogRecordsRequestsNotUnits(t *testing.T) {
	var l algo.SlidingLogState
	const w = 1000
	ps := l.Eval(0, 5, w, 6)
	assert.False(t, ps.Allowed)
	assert.Equal(t, time.Second, ps.RetryAfter, "an empty log and a cost above the limit")

	require.True(t, l.Eval(10, 4_000_000_000, w, 3_000_000_000).Allowed)
	l.Charge(10, 10, 4_000_000_000, w, 3_000_000_000)
	require.True(t, l.Eval(20, 4_000_000_000, w, 1).Allowed)
	l.Charge(20, 21, 4_000_000_000, w, 1) // admitted between milliseconds
	l.Charge(21, 21, 4_000_000_000, w, 2) // the same millisecond: one record
	assert.Equal(t, 2, l.Len())
	assert.Equal(t, int64(3_000_000_003), l.Count())

	ps = l.Eval(500, 4_000_000_000, w, 1_000_000_000)
	assert.False(t, ps.Allowed)
	assert.Equal(t, 510*time.Millisecond, ps.RetryAfter, "the heavy request must leave first")
	ps = l.Eval(500, 3_000_000_001, w, 1)
	assert.False(t, ps.Allowed, "limit lowered")
	assert.Equal(t, 510*time.Millisecond, ps.RetryAfter, "the heavy record frees enough")
	ps = l.Eval(500, 2, w, 1)
	assert.False(t, ps.Allowed, "limit lowered below the cost in flight")
	assert.Equal(t, 521*time.Millisecond, ps.RetryAfter, "everything must leave")

	ps = l.Eval(1010, 4_000_000_000, w, 1_000_000_000)
	assert.True(t, ps.Allowed)
	assert.Equal(t, 1, l.Len())
}
