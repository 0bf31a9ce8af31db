package memory_test

import (
	"context"
	"fmt"
	"math/rand"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
)

// A fixed-window or sliding-counter key that goroutines contend for is
// decided without the shard's mutex: a decision completes while another goroutine holds it.
func TestHotKeyDecidedWithoutMutex(t *testing.T) {
	for _, p := range []core.Policy{
		core.PerSecond(10).Using(core.FixedWindow),
		core.PerSecond(10).Using(core.SlidingWindow),
		core.Per(core.MaxLimit, time.Minute).Using(core.FixedWindow),
		core.Per(1<<31-1, time.Minute).Using(core.SlidingWindow),
	} {
		t.Run(p.Algorithm.String()+"/"+strconv.FormatInt(p.Limit, 10), func(t *testing.T) {
			testHotKeyDecidedWithoutMutex(t, p)
		})
	}
}

func testHotKeyDecidedWithoutMutex(t *testing.T, p core.Policy) {
	s := memory.New(memory.WithShards(1))
	ps := policies(t, p)
	ctx := context.Background()
	_, err := s.Take(ctx, "hot", ps, 1, t0)
	require.NoError(t, err)
	require.True(t, memory.MakeHotForTest(s, "hot", ps[0]))

	unlock := memory.LockShardForTest(s, "hot")
	done := make(chan core.Result, 1)
	go func() {
		r, _ := s.Take(ctx, "hot", ps, 1, t0.Add(time.Millisecond))
		done <- r
	}()
	select {
	case r := <-done:
		unlock()
		assert.True(t, r.States[0].Allowed)
		assert.EqualValues(t, p.Limit-2, r.States[0].Remaining)
	case <-time.After(10 * time.Second):
		unlock()
		t.Fatal("a decision on the hot key waited for the shard's mutex")
	}
}

// Many goroutines on one key, with a hot cell installed by contention or
// by hand, admit exactly what one goroutine alone would: on the cell alone
// (odd rounds), and while other keys of the shard, Peeks and the key's own
// locked path retire and reinstall the cell (even rounds). Each round is one instant, so the order of its requests does
// not matter; the rounds move through buckets so that a sliding counter's
// previous bucket weighs.
func TestHotKeyExactUnderConcurrency(t *testing.T) {
	const (
		limit      = 500
		goroutines = 16
		attempts   = 100 // per goroutine and round: 3.2× the limit
	)
	for _, alg := range []core.Algorithm{core.FixedWindow, core.SlidingWindow} {
		t.Run(alg.String(), func(t *testing.T) {
			s, ref := memory.New(memory.WithShards(1)), memory.New()
			ps := policies(t, core.PerSecond(limit).Using(alg))
			ctx := context.Background()
			for round := 0; round < 30; round++ {
				now := t0.Add(time.Duration(round) * 300 * time.Millisecond)
				contention{goroutines: goroutines, attempts: attempts,
					makeHot: func(time.Time) bool { return memory.MakeHotForTest(s, "hot", ps[0]) },
				}.round(t, s, ref, ps, round, 1, now)
				got, err := s.Peek(ctx, "hot", ps, 1, now)
				require.NoError(t, err)
				exp, err := ref.Peek(ctx, "hot", ps, 1, now)
				require.NoError(t, err)
				require.Equal(t, exp, got, "round %d", round)
			}
		})
	}
}

// contention is the round of the hot-key concurrency tests: goroutines
// each make attempts Takes of key "hot", and together they must admit
// exactly what one goroutine alone admits at the round's instant.
type contention struct {
	goroutines, attempts int
	// makeHot gives the key its cell by hand at the instant now.
	makeHot func(now time.Time) bool
	// at, if not nil, is the instant of a plain Take of goroutine g's
	// attempt i in an even round; the round's instant otherwise.
	at func(start time.Time, g, i int) time.Time
}

// round counts what ref admits of cost at start, then runs the
// goroutines on s. Odd rounds first make the key's cell with makeHot and
// then only take from it; even rounds rely on contention to make cells,
// and mix in Takes of other keys of the shard and Peeks of the key,
// which retire them.
func (c contention) round(t *testing.T, s, ref core.Store, ps []core.Policy, round int, cost int64, start time.Time) {
	t.Helper()
	ctx := context.Background()
	want := 0
	for ; ; want++ {
		r, err := ref.Take(ctx, "hot", ps, cost, start)
		require.NoError(t, err)
		if !r.States[0].Allowed {
			break
		}
	}
	var admitted atomic.Int64
	if round%2 == 1 {
		r, err := s.Take(ctx, "hot", ps, cost, start)
		require.NoError(t, err)
		if r.States[0].Allowed {
			admitted.Add(1)
		}
		require.True(t, c.makeHot(start))
	}
	var wg sync.WaitGroup
	for g := 0; g < c.goroutines; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < c.attempts; i++ {
				now := start
				switch {
				case round%2 == 1:
				case i%10 == 3:
					_, err := s.Take(ctx, "cold-"+strconv.Itoa(g*c.attempts+i), ps, 1, now)
					assert.NoError(t, err)
				case i%25 == 7:
					_, err := s.Peek(ctx, "hot", ps, cost, now)
					assert.NoError(t, err)
				case c.at != nil:
					now = c.at(start, g, i)
				}
				r, err := s.Take(ctx, "hot", ps, cost, now)
				assert.NoError(t, err)
				if r.States[0].Allowed {
					admitted.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	require.EqualValues(t, want, admitted.Load(), "round %d", round)
}

// A hot cell whose key went quiet is retired, and the key reclaimed like
// any other once its window is over.
func TestQuietHotKeyIsReclaimed(t *testing.T) {
	s := memory.New(memory.WithShards(1))
	ps := policies(t, core.PerSecond(10).Using(core.FixedWindow))
	ctx := context.Background()
	_, err := s.Take(ctx, "hot", ps, 1, t0)
	require.NoError(t, err)
	require.True(t, memory.MakeHotForTest(s, "hot", ps[0]))
	now := t0.Add(5 * time.Second)
	for i := 0; i < 2000; i++ {
		_, err := s.Take(ctx, "k"+strconv.Itoa(i), ps, 1, now)
		require.NoError(t, err)
		now = now.Add(10 * time.Millisecond)
	}
	assert.False(t, memory.IsHotForTest(s, "hot"))
	assert.Less(t, memory.Len(s), 1000)
	// The hot key's last state went back to its slot: it is still
	// counted if its window is current.
	_, err = s.Take(ctx, "hot2", ps, 1, now)
	require.NoError(t, err)
	require.True(t, memory.MakeHotForTest(s, "hot2", ps[0]))
	for i := 0; i < 5; i++ {
		_, err = s.Take(ctx, "hot2", ps, 1, now)
		require.NoError(t, err)
	}
	require.NoError(t, s.Reset(ctx, "x", ps)) // another key: the cell stays
	assert.True(t, memory.IsHotForTest(s, "hot2"))
	r, err := s.Peek(ctx, "hot2", ps, 1, now) // retires the cell, reads the slot
	require.NoError(t, err)
	assert.EqualValues(t, 4, r.States[0].Remaining)
	assert.False(t, memory.IsHotForTest(s, "hot2"))
}

// A limit raised past what the cell's counts hold (the same policy, so
// the same counters) sends decisions back to the mutex, with the counts
// kept.
func TestHotKeyLimitRaised(t *testing.T) {
	for _, alg := range []core.Algorithm{core.FixedWindow, core.SlidingWindow} {
		t.Run(alg.String(), func(t *testing.T) {
			s, ref := memory.New(memory.WithShards(1)), memory.New()
			small := policies(t, core.PerSecond(10).Named("api").Using(alg))
			large := policies(t, core.PerSecond(1000).Named("api").Using(alg))
			ctx := context.Background()
			for _, st := range []core.Store{s, ref} {
				for i := 0; i < 6; i++ {
					_, err := st.Take(ctx, "hot", small, 1, t0)
					require.NoError(t, err)
				}
			}
			require.True(t, memory.MakeHotForTest(s, "hot", small[0]))
			for i := 0; i < 1200; i++ {
				now := t0.Add(time.Duration(i) * time.Millisecond)
				got, err := s.Take(ctx, "hot", large, 1, now)
				require.NoError(t, err)
				want, err := ref.Take(ctx, "hot", large, 1, now)
				require.NoError(t, err)
				require.Equal(t, want, got, "request %d", i)
			}
		})
	}
}

// A key whose cell is made hot at random points decides exactly as on a
// store without hot cells, through limit changes (the same counters under
// another limit, up to the widest the cell packs), far clock steps forward
// (past the cell's window index), steps back (a rebase), Peeks, Resets
// and multi-policy calls, which all retire the cell. One key per store, so
// that sampled sweeps of other keys cannot make the two stores differ.
func TestHotCellMatchesLockedPath(t *testing.T) {
	limits := []int64{1, 2, 3, 4, 7, 8, 15, 16, 100, 1<<31 - 1, core.MaxLimit}
	for seed := int64(0); seed < 200; seed++ {
		rng := rand.New(rand.NewSource(seed))
		alg := []core.Algorithm{core.FixedWindow, core.SlidingWindow}[seed%2]
		s := memory.New(memory.WithShards(1))
		w := walk{alg: alg, limits: limits, move: func(rng *rand.Rand) time.Duration {
			switch rng.Intn(12) {
			case 0:
				return -time.Duration(rng.Intn(200)) * time.Millisecond
			case 1:
				return time.Duration(rng.Intn(1000)) * time.Millisecond
			case 2:
				return time.Duration(rng.Int63n(1<<40)) * time.Millisecond
			default:
				return time.Duration(rng.Intn(3)) * time.Millisecond
			}
		}, makeHot: func(p core.Policy, _ time.Time) { memory.MakeHotForTest(s, "k", p) }}
		w.run(t, rng, seed, s)
	}
}

// walk is a random walk on key "k" of a store under test and of a store
// without hot cells, which must give the same Result at every step: the
// clock moves by move before each call, the limit changes one step in ten
// (to one of limits), and a step is a Reset, a Peek, a Take with a second
// policy, or most often a Take of the key's one policy, before which
// makeHot gives the key a cell one time in four.
type walk struct {
	alg     core.Algorithm
	limits  []int64
	move    func(*rand.Rand) time.Duration
	makeHot func(p core.Policy, now time.Time)
}

// run walks 400 steps from t0 on s, with a window drawn from rng.
func (w walk) run(t *testing.T, rng *rand.Rand, seed int64, s core.Store) {
	t.Helper()
	ctx := context.Background()
	ref := memory.New()
	win := time.Duration(1+rng.Intn(50)) * time.Millisecond
	now, lim := t0, w.limits[rng.Intn(len(w.limits))]
	for step := 0; step < 400; step++ {
		if rng.Intn(10) == 0 {
			lim = w.limits[rng.Intn(len(w.limits))]
		}
		ps := policies(t, core.Per(lim, win).Named("api").Using(w.alg))
		now = now.Add(w.move(rng))
		cost := int64(1 + rng.Intn(3))
		msg := fmt.Sprintf("seed %d step %d", seed, step)
		var got, want core.Result
		switch rng.Intn(20) {
		case 0:
			require.NoError(t, s.Reset(ctx, "k", ps))
			require.NoError(t, ref.Reset(ctx, "k", ps))
			continue
		case 1:
			got, _ = s.Peek(ctx, "k", ps, cost, now)
			want, _ = ref.Peek(ctx, "k", ps, cost, now)
		case 2:
			two := policies(t, ps[0], core.PerSecond(5).Named("other"))
			got, _ = s.Take(ctx, "k", two, cost, now)
			want, _ = ref.Take(ctx, "k", two, cost, now)
		default:
			if rng.Intn(4) == 0 {
				w.makeHot(ps[0], now)
			}
			got, _ = s.Take(ctx, "k", ps, cost, now)
			want, _ = ref.Take(ctx, "k", ps, cost, now)
		}
		require.Equal(t, want, got, msg)
	}
}

// A hot key's decisions count as calls on its shard: while it is the only
// key in use, expired entries of the shard are still reclaimed, as they
// would be without the cell.
func TestHotKeyCallsReclaimExpiredKeys(t *testing.T) {
	for _, alg := range []core.Algorithm{core.FixedWindow, core.SlidingWindow} {
		t.Run(alg.String(), func(t *testing.T) {
			s := memory.New(memory.WithShards(1))
			ps := policies(t, core.PerSecond(1000).Using(alg))
			ctx := context.Background()
			const flood = 20_000
			for i := 0; i < flood; i++ {
				_, err := s.Take(ctx, "flood-"+strconv.Itoa(i), ps, 1, t0)
				require.NoError(t, err)
			}
			now := t0.Add(time.Minute)
			_, err := s.Take(ctx, "hot", ps, 1, now)
			require.NoError(t, err)
			require.True(t, memory.MakeHotForTest(s, "hot", ps[0]))
			// The flood is over; only the hot key is used, at its limit.
			for i := 0; i < 100_000; i++ {
				if i%1000 == 0 {
					now = now.Add(time.Second)
				}
				_, err := s.Take(ctx, "hot", ps, 1, now)
				require.NoError(t, err)
			}
			assert.Less(t, memory.Len(s), flood/10)
		})
	}
}
