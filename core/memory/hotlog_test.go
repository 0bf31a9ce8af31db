package memory_test

import (
	"context"
	"math/rand"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
)

// half is a sub-millisecond offset: an instant at t0 + n ms + half is
// rounded down and up to different milliseconds, as most real ones are.
const half = 500 * time.Microsecond

// A sliding-log key that goroutines contend for gets a hot cell from its
// locked path, and within that millisecond an admission on it completes
// while another goroutine holds the shard's mutex.
func TestHotLogKeyDecidedWithoutMutex(t *testing.T) {
	s := memory.New(memory.WithShards(1))
	ps := policies(t, core.PerSecond(100).Using(core.SlidingLog))
	ctx := context.Background()
	now := t0.Add(half)
	_, err := s.Take(ctx, "hot", ps, 1, now)
	require.NoError(t, err)
	admitted := int64(1)
	// A Take that has to wait for the mutex makes the cell. It waits only
	// if it reaches the mutex while held, which a short sleep makes likely;
	// try a few times.
	for try := 0; try < 20 && !memory.IsHotForTest(s, "hot"); try++ {
		unlock := memory.LockShardForTest(s, "hot")
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, err := s.Take(ctx, "hot", ps, 1, now)
			assert.NoError(t, err)
		}()
		time.Sleep(20 * time.Millisecond)
		unlock()
		<-done
		admitted++
	}
	require.True(t, memory.IsHotForTest(s, "hot"), "a contended log key gets no hot cell")

	unlock := memory.LockShardForTest(s, "hot")
	done := make(chan core.Result, 1)
	go func() {
		r, _ := s.Take(ctx, "hot", ps, 2, now)
		done <- r
	}()
	select {
	case r := <-done:
		unlock()
		assert.True(t, r.States[0].Allowed)
		assert.EqualValues(t, 100-admitted-2, r.States[0].Remaining)
		assert.Equal(t, time.Second+time.Millisecond, r.States[0].ResetAfter)
	case <-time.After(10 * time.Second):
		unlock()
		t.Fatal("a decision on the hot log key waited for the shard's mutex")
	}
	// What the cell admitted is in the log.
	r, err := s.Peek(ctx, "hot", ps, 1, now)
	require.NoError(t, err)
	assert.EqualValues(t, 100-admitted-2, r.States[0].Remaining)
	assert.False(t, memory.IsHotForTest(s, "hot"))
}

// Calls that queued on the mutex while the first of them made the key's
// cell decide on that cell when their instant is its own, rather than
// replace it with a new one: a contended key gets about one cell a
// millisecond.
func TestHotLogCellServesQueuedCalls(t *testing.T) {
	ps := policies(t, core.PerSecond(100).Using(core.SlidingLog))
	ctx := context.Background()
	now := t0.Add(half)
	for try := 0; try < 20; try++ {
		s := memory.New(memory.WithShards(1))
		_, err := s.Take(ctx, "hot", ps, 1, now)
		require.NoError(t, err)
		unlock := memory.LockShardForTest(s, "hot")
		var wg sync.WaitGroup
		for g := 0; g < 2; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r, err := s.Take(ctx, "hot", ps, 1, now)
				assert.NoError(t, err)
				assert.True(t, r.States[0].Allowed)
			}()
		}
		time.Sleep(20 * time.Millisecond) // for both to queue
		unlock()
		wg.Wait()
		if units, ok := memory.HotLogUnitsForTest(s, "hot"); ok {
			assert.EqualValues(t, 1, units, "the second call made a new cell")
			return
		}
	}
	t.Fatal("the queued calls made no cell")
}

// Many goroutines on one log key, at instants a few milliseconds apart
// (so the cell changes hands as the instants interleave), admit exactly
// what one goroutine alone would. Each round's instants lie within 4 ms,
// rounds 30 ms apart and the window is 100 ms: the records of earlier
// rounds are all in the window, or all out, at every instant of a round,
// so a round admits ⌊room / cost⌋ in any order. Odd rounds start from a
// hand-made cell and use it alone; even ones rely on contention while
// other keys, Peeks of the key and its own locked path retire the cell.
func TestHotLogKeyExactUnderConcurrency(t *testing.T) {
	const (
		limit      = 300
		goroutines = 16
		attempts   = 60 // per goroutine and round: 3.2× the limit
	)
	s, ref := memory.New(memory.WithShards(1)), memory.New()
	ps := policies(t, core.Per(limit, 100*time.Millisecond).Using(core.SlidingLog))
	ctx := context.Background()
	for round := 0; round < 40; round++ {
		start := t0.Add(time.Duration(round)*30*time.Millisecond + half)
		cost := int64(1 + round%3)
		contention{goroutines: goroutines, attempts: attempts,
			makeHot: func(now time.Time) bool { return memory.MakeHotLogForTest(s, "hot", ps[0], now) },
			at: func(start time.Time, g, i int) time.Time {
				return start.Add(time.Duration((g+i/8)%4) * time.Millisecond)
			},
		}.round(t, s, ref, ps, round, cost, start)
		got, err := s.Peek(ctx, "hot", ps, 1, start)
		require.NoError(t, err)
		exp, err := ref.Peek(ctx, "hot", ps, 1, start)
		require.NoError(t, err)
		require.Equal(t, exp.States[0].Allowed, got.States[0].Allowed, "round %d", round)
		require.Equal(t, exp.States[0].Remaining, got.States[0].Remaining, "round %d", round)
	}
	used, keys, wantUsed, wantKeys := memory.WeightsForTest(s)
	assert.Equal(t, wantUsed, used)
	assert.Equal(t, wantKeys, keys)
}

// A log key whose cell is made at random points decides exactly as on a
// store without hot cells: costs of 1 to 3, limits raised and lowered,
// instants on and between milliseconds, steps forward, steps back by less
// and by more than a window (a rebase), Peeks, Resets and multi-policy
// calls. The store's weight accounting stays that of its logs.
func TestHotLogCellMatchesLockedPath(t *testing.T) {
	limits := []int64{1, 2, 3, 5, 8, 16, 100, core.MaxLimit}
	for seed := int64(0); seed < 200; seed++ {
		rng := rand.New(rand.NewSource(seed))
		s := memory.New(memory.WithShards(1))
		w := walk{alg: core.SlidingLog, limits: limits, move: func(rng *rand.Rand) time.Duration {
			switch rng.Intn(12) {
			case 0:
				return -time.Duration(rng.Intn(200)) * time.Millisecond
			case 1:
				return time.Duration(rng.Intn(100)) * time.Millisecond
			case 2:
				return time.Duration(rng.Intn(1000)) * time.Microsecond
			case 3, 4, 5:
				return 0
			default:
				return time.Duration(rng.Intn(3)) * time.Millisecond
			}
		}, makeHot: func(p core.Policy, now time.Time) { memory.MakeHotLogForTest(s, "k", p, now) }}
		w.run(t, rng, seed, s)
		used, keys, wantUsed, wantKeys := memory.WeightsForTest(s)
		require.Equal(t, wantUsed, used, "seed %d", seed)
		require.Equal(t, wantKeys, keys, "seed %d", seed)
	}
}

// A cell made for one instant is not used at another: a step back (by
// more than a window, so the log is rebased) or forward goes to the mutex,
// which folds the cell's admissions into the log first.
func TestHotLogCellClockSteps(t *testing.T) {
	ctx := context.Background()
	ps := policies(t, core.PerSecond(10).Using(core.SlidingLog))
	s, ref := memory.New(memory.WithShards(1)), memory.New()
	later := t0.Add(5*time.Second + half)
	take := func(now time.Time, cost int64) {
		t.Helper()
		got, err := s.Take(ctx, "k", ps, cost, now)
		require.NoError(t, err)
		want, err := ref.Take(ctx, "k", ps, cost, now)
		require.NoError(t, err)
		require.Equal(t, want, got, "at %v cost %d", now.Sub(t0), cost)
	}
	take(later, 1)
	require.True(t, memory.MakeHotLogForTest(s, "k", ps[0], later))
	take(later, 3)
	take(later, 2)
	assert.True(t, memory.IsHotForTest(s, "k"))
	take(t0, 1) // back by more than the window: the six units move to t0
	assert.False(t, memory.IsHotForTest(s, "k"))
	take(t0, 4)
	take(t0, 1)
	take(t0.Add(999*time.Millisecond), 1)
	require.True(t, memory.MakeHotLogForTest(s, "k", ps[0], t0.Add(time.Second+half)))
	take(t0.Add(time.Second+half), 2)
	take(t0.Add(time.Second+half), 9)
	take(t0.Add(time.Second+half), 8)
	take(t0.Add(1001*time.Millisecond), 1) // forward, within the millisecond rounded up
	take(t0.Add(2*time.Second), 1)
}

// A limit lowered or raised under the same policy while a log key has a
// cell: admissions that fit the new limit stay on the cell, others go to
// the mutex, and every report is the locked path's.
func TestHotLogCellLimitChanged(t *testing.T) {
	ctx := context.Background()
	s, ref := memory.New(memory.WithShards(1)), memory.New()
	now := t0.Add(half)
	for _, lim := range []int64{10, 4, 20, 6, 7, 1000, 3} {
		ps := policies(t, core.PerSecond(lim).Named("api").Using(core.SlidingLog))
		for i := 0; i < 4; i++ {
			got, err := s.Take(ctx, "k", ps, 2, now)
			require.NoError(t, err)
			want, err := ref.Take(ctx, "k", ps, 2, now)
			require.NoError(t, err)
			require.Equal(t, want, got, "limit %d take %d", lim, i)
			memory.MakeHotLogForTest(s, "k", ps[0], now)
		}
	}
}

// Sweeps and evictions on behalf of other keys never delete a log key
// with a live cell, and the cell's admissions are counted once folded:
// the key is then reclaimed like any other when it expires.
func TestHotLogCellAndSweeps(t *testing.T) {
	ctx := context.Background()
	ps := policies(t, core.PerSecond(1000).Using(core.SlidingLog))
	now := t0.Add(time.Minute + half)
	take := func(s core.Store, key string) core.Result {
		t.Helper()
		r, err := s.Take(ctx, key, ps, 1, now)
		require.NoError(t, err)
		return r
	}

	// Sweeps: cold keys come while expired ones are reclaimed around the
	// hot key's slot.
	s, ref := memory.New(memory.WithShards(1)), memory.New()
	for i := 0; i < 5000; i++ {
		_, err := s.Take(ctx, "expired-"+strconv.Itoa(i), ps, 1, t0)
		require.NoError(t, err)
	}
	take(s, "hot")
	take(ref, "hot")
	require.True(t, memory.MakeHotLogForTest(s, "hot", ps[0], now))
	for i := 0; i < 5000; i++ {
		take(s, "cold-"+strconv.Itoa(i))
		if i%10 == 0 {
			require.Equal(t, take(ref, "hot"), take(s, "hot"), "cold key %d", i)
		}
	}
	assert.Less(t, memory.Len(s), 5000+1000, "the expired keys are not reclaimed")
	got, err := s.Peek(ctx, "hot", ps, 1, now)
	require.NoError(t, err)
	want, err := ref.Peek(ctx, "hot", ps, 1, now)
	require.NoError(t, err)
	require.Equal(t, want, got)
	used, keys, wantUsed, wantKeys := memory.WeightsForTest(s)
	assert.Equal(t, wantUsed, used)
	assert.Equal(t, wantKeys, keys)

	// Evictions: under a cap, every new key evicts another, never the key
	// with the cell.
	s = memory.New(memory.WithShards(1), memory.WithMaxKeys(100))
	take(s, "hot")
	require.True(t, memory.MakeHotLogForTest(s, "hot", ps[0], now))
	i := 0
	for ; i < 500 && memory.IsHotForTest(s, "hot"); i++ {
		take(s, "cold-"+strconv.Itoa(i))
		require.NotZero(t, memory.LogCapForTest(s, "hot", ps[0]), "cold key %d evicted the hot key", i)
		take(s, "hot")
	}
	assert.Greater(t, i, 200, "the cell was retired too soon for the test to mean much")
	used, keys, wantUsed, wantKeys = memory.WeightsForTest(s)
	assert.Equal(t, wantUsed, used)
	assert.Equal(t, wantKeys, keys)
	assert.LessOrEqual(t, used, 100)

	// Once its window is over, the hot key goes like the others.
	s = memory.New(memory.WithShards(1))
	take(s, "hot")
	require.True(t, memory.MakeHotLogForTest(s, "hot", ps[0], now))
	take(s, "hot")
	later := now.Add(time.Minute)
	for i := 0; i < 2000; i++ {
		_, err := s.Take(ctx, "late-"+strconv.Itoa(i), ps, 1, later)
		require.NoError(t, err)
		later = later.Add(10 * time.Millisecond)
	}
	assert.False(t, memory.IsHotForTest(s, "hot"))
	assert.Zero(t, memory.LogCapForTest(s, "hot", ps[0]), "the expired hot key is still held")
}
