package algo_test

import (
	"math/rand"
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
	ps := l.Eval(0, 0, 5, w, 6)
	assert.False(t, ps.Allowed)
	assert.Equal(t, time.Second, ps.RetryAfter, "an empty log and a cost above the limit")

	require.True(t, l.Eval(10, 10, 4_000_000_000, w, 3_000_000_000).Allowed)
	l.Charge(10, 10, 4_000_000_000, w, 3_000_000_000)
	require.True(t, l.Eval(20, 20, 4_000_000_000, w, 1).Allowed)
	l.Charge(20, 21, 4_000_000_000, w, 1) // admitted between milliseconds
	l.Charge(21, 21, 4_000_000_000, w, 2) // the same millisecond: one record
	assert.Equal(t, 2, l.Len())
	assert.Equal(t, int64(3_000_000_003), l.Count())

	ps = l.Eval(500, 500, 4_000_000_000, w, 1_000_000_000)
	assert.False(t, ps.Allowed)
	assert.Equal(t, 510*time.Millisecond, ps.RetryAfter, "the heavy request must leave first")
	ps = l.Eval(500, 500, 3_000_000_001, w, 1)
	assert.False(t, ps.Allowed, "limit lowered")
	assert.Equal(t, 510*time.Millisecond, ps.RetryAfter, "the heavy record frees enough")
	ps = l.Eval(500, 500, 2, w, 1)
	assert.False(t, ps.Allowed, "limit lowered below the cost in flight")
	assert.Equal(t, 521*time.Millisecond, ps.RetryAfter, "everything must leave")

	ps = l.Eval(1010, 1010, 4_000_000_000, w, 1_000_000_000)
	assert.True(t, ps.Allowed)
	assert.Equal(t, 2, l.Len(), "an Eval skips the record that left the window")
	l.Charge(1010, 1010, 4_000_000_000, w, 1_000_000_000)
	assert.Equal(t, 2, l.Len(), "a charge drops it")
	assert.Equal(t, int64(1_000_000_003), l.Count())
}

// After a clock step back of more than a window, the log is rebased with
// the units that counted at its last admission, whatever Evals (a Peek, a
// denial) came between: they skip the records that left the window, they
// do not forget them. So two logs with the same admissions decide alike
// after the step, one of them evaluated often, the other never.
func TestSlidingLogRebaseIgnoresEvals(t *testing.T) {
	const lim, w = 5, 1000
	var quiet, busy algo.SlidingLogState
	for _, at := range []int64{100, 600, 900} {
		require.True(t, quiet.Eval(at, at, lim, w, 1).Allowed)
		quiet.Charge(at, at, lim, w, 1)
		require.True(t, busy.Eval(at, at, lim, w, 1).Allowed)
		busy.Charge(at, at, lim, w, 1)
	}
	// Later, the first two records have left the window; the Evals (one
	// denied) must not drop them.
	assert.Equal(t, int64(4), busy.Eval(1700, 1700, lim, w, 1).Remaining)
	assert.False(t, busy.Eval(1700, 1700, lim, w, 5).Allowed)
	assert.Equal(t, 3, busy.Len())

	// The clock steps back by more than a window: both logs are rebased
	// with the three units that counted at their last admission.
	for name, l := range map[string]*algo.SlidingLogState{"quiet": &quiet, "busy": &busy} {
		ps := l.Eval(-500, -500, lim, w, 3)
		assert.False(t, ps.Allowed, name)
		assert.Equal(t, int64(2), ps.Remaining, name)
		assert.Equal(t, time.Second, ps.RetryAfter, name)
		assert.Equal(t, 1, l.Len(), name)
		assert.False(t, l.Expired(-500, w), name)
	}
}

// A log more than a window in the future is not expired: a store must not
// reclaim it, since the next Eval rebases it with its counts.
func TestSlidingLogFutureIsNotExpired(t *testing.T) {
	var l algo.SlidingLogState
	require.True(t, l.Eval(5000, 5000, 1, 1000, 1).Allowed)
	l.Charge(5000, 5000, 1, 1000, 1)
	assert.False(t, l.Expired(0, 1000), "a clock stepped back")
	assert.False(t, l.Expired(5999, 1000))
	assert.True(t, l.Expired(6000, 1000))
	assert.False(t, l.Eval(0, 0, 1, 1000, 1).Allowed, "rebased with its count")
}

// Takes at one instant, from any log, admit while Basis's count plus what
// they admitted plus the cost fits, report what that count gives, and
// leave the log as one Charge of the units they admitted would.
func TestSlidingLogBasis(t *testing.T) {
	const w, lim = 50, 40
	for seed := int64(0); seed < 300; seed++ {
		rng := rand.New(rand.NewSource(seed))
		var taken, charged algo.SlidingLogState
		now := int64(1000)
		for i := 0; i < 30; i++ {
			now += int64(rng.Intn(20))
			at, cost := now+int64(rng.Intn(2)), int64(1+rng.Intn(4))
			taken.Take(now, at, lim, w, cost)
			charged.Take(now, at, lim, w, cost)
		}
		now += int64(rng.Intn(160)) - 80
		at := now + int64(rng.Intn(2))
		count, recordAt, ok := taken.Basis(now, at, w)
		if !ok {
			continue // a Take at now rebases the log first
		}
		var used int64
		for i := 0; i < 20; i++ {
			cost := int64(1 + rng.Intn(4))
			ps := taken.Take(now, at, lim, w, cost)
			fits := count+used+cost <= lim
			require.Equal(t, fits, ps.Allowed, "seed %d take %d", seed, i)
			if fits {
				used += cost
				require.Equal(t, lim-(count+used), ps.Remaining, "seed %d take %d", seed, i)
				require.Equal(t, time.Duration(recordAt+w-now)*time.Millisecond, ps.ResetAfter, "seed %d take %d", seed, i)
			}
		}
		if used > 0 {
			charged.Charge(now, at, lim, w, used)
		}
		for _, later := range []int64{now, now + 1, now + w/2, now + w} {
			require.Equal(t, charged.Eval(later, later, lim, w, 1), taken.Eval(later, later, lim, w, 1), "seed %d at %d", seed, later)
			require.Equal(t, charged.Count(), taken.Count(), "seed %d", seed)
			require.Equal(t, charged.Len(), taken.Len(), "seed %d", seed)
		}
	}
}
