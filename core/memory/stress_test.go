package memory_test

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
)

// stressCall is one call the stress tests make on key "hot": the policies
// of one limiter, and its cost.
type stressCall struct {
	who  int // index into the phase's limiters
	cost int64
}

// stressPhase is one instant of the phased stress test, and the limiters
// that use key "hot" at it.
type stressPhase struct {
	at       time.Duration // from t0
	limiters [][]core.Policy
}

// run has goroutines hammer key "hot" of s at the phase's instant through
// every limiter (one goroutine in four a multi-policy limiter, when
// there is one), while others Peek it and use other keys of the shard.
// It returns the calls that were admitted and those that were denied.
func (ph stressPhase) run(t *testing.T, s core.Store, now time.Time) (admitted, denied []stressCall) {
	t.Helper()
	ctx := context.Background()
	var mu sync.Mutex
	var wg sync.WaitGroup
	const goroutines, attempts = 12, 80
	stop := make(chan struct{})
	made := make(chan int)
	go func() {
		// Cells made by hand too, for each one-policy limiter in turn,
		// however little the goroutines happen to contend.
		n := 0
		defer func() { made <- n }()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			ps := ph.limiters[i%len(ph.limiters)]
			if len(ps) > 1 {
				continue
			}
			var ok bool
			if ps[0].Algorithm == core.SlidingLog {
				ok = memory.MakeHotLogForTest(s, "hot", ps[0], now)
			} else {
				ok = memory.MakeHotForTest(s, "hot", ps[0])
			}
			if ok {
				n++
			}
			time.Sleep(50 * time.Microsecond)
		}
	}()
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var adm, den []stressCall
			for i := 0; i < attempts; i++ {
				who := (g + i/16) % len(ph.limiters)
				ps := ph.limiters[who]
				switch i % 16 {
				case 5: // other keys of the shard: sweeps, growth, the mutex busy
					_, err := s.Take(ctx, "cold-"+strconv.Itoa(g*attempts+i), ps[:1], 1, now)
					assert.NoError(t, err)
				case 11: // a Peek retires the key's cell
					_, err := s.Peek(ctx, "hot", ps, 1, now)
					assert.NoError(t, err)
				}
				lim := ps[0].Limit
				for _, p := range ps {
					lim = min(lim, p.Limit)
				}
				cost := []int64{1, 1, 1, 2, 1, 3, 1, lim}[(g+i)%8]
				cost = min(cost, lim)
				r, err := s.Take(ctx, "hot", ps, cost, now)
				if !assert.NoError(t, err) {
					return
				}
				if allowed(r, len(ps)) {
					adm = append(adm, stressCall{who, cost})
				} else {
					den = append(den, stressCall{who, cost})
				}
			}
			mu.Lock()
			admitted = append(admitted, adm...)
			denied = append(denied, den...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	close(stop)
	<-made
	return admitted, denied
}

// Many goroutines on one key at each of a series of instants (clock steps
// back by less and by more than a window, forward by a window and by
// years, limits raised and lowered under the same counters, a window
// changed so new counters), through a one-policy limiter, a two-policy
// limiter sharing its first policy, and one whose policy has the same
// Name and another Window, while other goroutines Peek the key and use
// other keys of its shard. Within an instant every decision is monotone,
// so the calls were exact if and only if: replayed one by one on a store
// that saw the same history, every admitted call is admitted; afterwards
// both stores hold the same counts under every policy; and every call
// the store denied is denied there. A charge on one policy and not the
// other, a lost or doubled charge, or a cell deciding for counts it does
// not hold fails one of the three.
func TestHotKeyStressMatchesSerial(t *testing.T) {
	for _, alg := range []core.Algorithm{core.FixedWindow, core.SlidingWindow, core.SlidingLog} {
		t.Run(alg.String(), func(t *testing.T) {
			testHotKeyStress(t, alg)
		})
	}
}

func testHotKeyStress(t *testing.T, alg core.Algorithm) {
	const w = 100 * time.Millisecond
	api := func(limit int64, win time.Duration) core.Policy {
		return core.Per(limit, win).Named("api").Using(alg)
	}
	other := core.Per(400, time.Second).Named("other").Using(core.FixedWindow)
	if alg == core.FixedWindow {
		other = other.Using(core.SlidingLog)
	}
	mk := func(at time.Duration, limit int64) stressPhase {
		return stressPhase{at: at, limiters: [][]core.Policy{
			policies(t, api(limit, w)),
			policies(t, api(limit, w), other),
			policies(t, api(limit/2+1, 3*w)),
		}}
	}
	year := 365 * 24 * time.Hour
	var phases []stressPhase
	for i, at := range []time.Duration{
		0, 0, time.Millisecond, 30 * time.Millisecond, 90 * time.Millisecond, // one window
		120 * time.Millisecond, 170 * time.Millisecond, 260 * time.Millisecond, // the next ones
		200 * time.Millisecond, 150 * time.Millisecond, // back by less than a window
		-400 * time.Millisecond, -390 * time.Millisecond, // back by more: a rebase
		-100 * time.Millisecond,
		20 * year, 20*year + 5*time.Millisecond, // forward by years
		20*year - 60*time.Millisecond, // and back a little
		40 * year, 40*year + 250*time.Millisecond,
	} {
		// Limits that rise and fall under the same counters: a cell made
		// for one must never decide with another's room.
		limit := []int64{60, 300, 7, 200, 1, 120}[i%6]
		phases = append(phases, mk(at+half, limit))
	}

	s := memory.New(memory.WithShards(1))
	ref := memory.New(memory.WithShards(1))
	ctx := context.Background()
	for i, ph := range phases {
		now := t0.Add(ph.at)
		msg := fmt.Sprintf("phase %d (%v)", i, ph.at)
		// One serial call per limiter first, on both stores, so that every
		// state of "hot" is current at this instant in both, whatever the
		// sweeps of other keys reclaimed in the store under test.
		for _, ps := range ph.limiters {
			got, err := s.Take(ctx, "hot", ps, 1, now)
			require.NoError(t, err)
			want, err := ref.Take(ctx, "hot", ps, 1, now)
			require.NoError(t, err)
			require.Equal(t, want, got, msg)
		}
		admitted, denied := ph.run(t, s, now)
		for _, c := range admitted {
			r, err := ref.Take(ctx, "hot", ph.limiters[c.who], c.cost, now)
			require.NoError(t, err)
			require.True(t, allowed(r, len(ph.limiters[c.who])), "%s: the store admitted more than a serial run would (%d admitted)", msg, len(admitted))
		}
		for _, ps := range ph.limiters {
			for _, p := range ps {
				got, err := s.Peek(ctx, "hot", []core.Policy{p}, 1, now)
				require.NoError(t, err)
				want, err := ref.Peek(ctx, "hot", []core.Policy{p}, 1, now)
				require.NoError(t, err)
				require.Equal(t, want, got, "%s: policy %v", msg, p)
			}
		}
		for _, c := range denied {
			r, err := ref.Peek(ctx, "hot", ph.limiters[c.who], c.cost, now)
			require.NoError(t, err)
			require.False(t, allowed(r, len(ph.limiters[c.who])), "%s: the store denied a call a serial run admits", msg)
		}
	}
	used, keys, wantUsed, wantKeys := memory.WeightsForTest(s)
	assert.Equal(t, wantUsed, used)
	assert.Equal(t, wantKeys, keys)
}

// allowed reports whether a Result of n policies allows the call.
func allowed(r core.Result, n int) bool {
	for _, st := range r.States[:n] {
		if !st.Allowed {
			return false
		}
	}
	return true
}
