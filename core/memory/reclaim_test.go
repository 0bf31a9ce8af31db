package memory_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/internal/policytest"
)

var t0 = time.UnixMilli(1_800_000_000_000)

func policies(t *testing.T, ps ...core.Policy) []core.Policy {
	t.Helper()
	out, err := policytest.Validate(ps)
	require.NoError(t, err)
	return out
}

func TestKeyCapBoundsEntries(t *testing.T) {
	const capKeys = 1000
	s := memory.New(memory.WithShards(8), memory.WithMaxKeys(capKeys))
	ps := policies(t, core.PerMinute(10).Using(core.FixedWindow))
	ctx := context.Background()
	for i := 0; i < 20*capKeys; i++ {
		r, err := s.Take(ctx, "flood-"+strconv.Itoa(i), ps, 1, t0)
		require.NoError(t, err)
		require.True(t, r.States[0].Allowed)
		require.LessOrEqual(t, memory.Len(s), capKeys)
	}
	assert.Greater(t, memory.Len(s), capKeys/2, "the cap should be used, not emptied")
}

func TestIdleKeysAreReclaimed(t *testing.T) {
	s := memory.New(memory.WithShards(1))
	ctx := context.Background()
	for _, alg := range []core.Algorithm{core.FixedWindow, core.SlidingWindow, core.SlidingLog} {
		ps := policies(t, core.PerSecond(5).Using(alg))
		now := t0
		// Each round inserts 1000 keys, then time moves past every window:
		// without reclaiming, the store would grow by 1000 a round.
		for round := 0; round < 20; round++ {
			for i := 0; i < 1000; i++ {
				_, err := s.Take(ctx, strconv.Itoa(round)+"-"+strconv.Itoa(i), ps, 1, now)
				require.NoError(t, err)
			}
			now = now.Add(3 * time.Second)
		}
		assert.Less(t, memory.Len(s), 4000, alg.String())
		s = memory.New(memory.WithShards(1))
	}
}

func TestZeroAllocsForExistingKey(t *testing.T) {
	ctx := context.Background()
	for _, alg := range []core.Algorithm{core.FixedWindow, core.SlidingWindow, core.SlidingLog} {
		// One policy and several: both go through Store.Take.
		for _, ps := range [][]core.Policy{
			{core.PerSecond(1_000_000).Using(alg)},
			{core.PerSecond(1_000_000).Using(alg), core.PerHour(1 << 30).Using(core.FixedWindow)},
		} {
			name := fmt.Sprintf("%v, %d policies", alg, len(ps))
			l, err := core.NewLimiter(memory.New(), ps)
			require.NoError(t, err)
			_, err = l.Allow(ctx, "hot-key-1234")
			require.NoError(t, err)
			allocs := testing.AllocsPerRun(1000, func() {
				if _, err := l.Allow(ctx, "hot-key-1234"); err != nil {
					panic(err)
				}
			})
			if alg == core.SlidingLog {
				// The log's ring buffer grows (amortised) as it fills.
				assert.Less(t, allocs, 0.05, name)
				continue
			}
			assert.Zero(t, allocs, name)
		}
	}
}

func TestSlidingLogMemoryBoundedByLimit(t *testing.T) {
	s := memory.New(memory.WithShards(1))
	ps := policies(t, core.PerMinute(100).Using(core.SlidingLog))
	ctx := context.Background()
	for i := 0; i < 10_000; i++ {
		_, err := s.Take(ctx, "k", ps, 1, t0.Add(time.Duration(i)*time.Millisecond))
		require.NoError(t, err)
	}
	assert.LessOrEqual(t, memory.LogCapForTest(s, "k", ps[0]), 100)
}

// A key whose state lies more than a window in the future (the clock
// stepped back) is not reclaimed by the sweeps that other keys' calls run:
// its next Take rebases it with its counts, as the Redis store does, so
// the requests admitted just before the step still count.
func TestFutureStatesAreKept(t *testing.T) {
	ctx := context.Background()
	for _, alg := range []core.Algorithm{core.FixedWindow, core.SlidingWindow, core.SlidingLog} {
		t.Run(alg.String(), func(t *testing.T) {
			s := memory.New(memory.WithShards(1))
			ps := policies(t, core.PerMinute(2).Using(alg))
			ahead := t0.Add(24 * time.Hour)
			for range 2 {
				r, err := s.Take(ctx, "stepped", ps, 1, ahead)
				require.NoError(t, err)
				require.True(t, r.States[0].Allowed)
			}
			// The clock steps back a day; other keys come and go.
			for i := range 200 {
				_, err := s.Take(ctx, "other-"+strconv.Itoa(i), ps, 1, t0)
				require.NoError(t, err)
			}
			assert.Equal(t, 201, memory.Len(s), "no state has expired")
			r, err := s.Take(ctx, "stepped", ps, 1, t0)
			require.NoError(t, err)
			assert.False(t, r.States[0].Allowed, "the two requests before the step count")
		})
	}
}
