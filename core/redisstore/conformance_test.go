package redisstore_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/internal/oracle"
	"github.com/ratewindow/ratewindow/core/redisstore"
	"github.com/ratewindow/ratewindow/core/storetest"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// conformance runs the suite twice: once with the callers' clock at least a
// day ahead of Redis's, so every key is written in its compact form, and
// once at least a day behind, so every key is written in its full form (see
// docs/redis.md, Keys and memory). The suite's instants (from suiteBase)
// move by a whole number of weeks, which keeps them aligned to every window
// it uses.
func conformance(t *testing.T, client redis.UniversalClient, opts ...redisstore.Option) {
	const week = 7 * 24 * time.Hour
	for name, ahead := range map[string]bool{"ClockAhead": true, "ClockBehind": false} {
		t.Run(name, func(t *testing.T) {
			by := clockShift(week, ahead)
			storetest.Run(t, func(t *testing.T) core.Store {
				s, err := redisstore.New(client, append([]redisstore.Option{redisstore.WithClientTime()}, append(opts, redisstore.WithPrefix(testredis.Prefix(t)))...)...)
				require.NoError(t, err)
				return shifted{s, by}
			})
		})
	}
}

// suiteBase is the instant core/storetest's calls are relative to.
var suiteBase = time.UnixMilli(1_800_000_000_000)

// clockShift returns the whole number of units that moves suiteBase at
// least a day ahead of the real clock (ahead) or at least a day behind it.
func clockShift(unit time.Duration, ahead bool) time.Duration {
	if ahead {
		target := time.Now().Add(24 * time.Hour).Sub(suiteBase)
		by := target / unit * unit
		if by < target {
			by += unit
		}
		return by
	}
	target := time.Now().Add(-24 * time.Hour).Sub(suiteBase)
	by := target / unit * unit
	if by > target {
		by -= unit
	}
	return by
}

// shifted is a Store whose callers' clock reads by later than the now
// they pass.
type shifted struct {
	core.Store
	by time.Duration
}

func (s shifted) Take(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
	return s.Store.Take(ctx, key, ps, cost, now.Add(s.by))
}

func (s shifted) Peek(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
	return s.Store.Peek(ctx, key, ps, cost, now.Add(s.by))
}

func TestConformanceStandalone(t *testing.T) {
	conformance(t, testredis.Standalone(t))
}

func TestConformanceCluster(t *testing.T) {
	conformance(t, testredis.Cluster(t))
}

// Every mix of algorithms, one to three policies (each algorithm alone,
// twice, with each other), runs through the script that serves it (one.lua
// for one policy, many.lua for more) and decides as the conformance
// suite's oracle does, on random sequences of Take, Peek and Reset, with
// the callers' clock a day ahead of Redis's and a day behind it, moved by a
// multiple of every window of the mix. (Windows under a second keep the
// full form either way.)
//
// A run that differs from the oracle after the machine stalled long enough
// for Redis to expire a key the oracle still counts (see expiryWatch) runs
// again, with fresh keys, up to three times in all; a difference in a run
// without such a stall fails at once.
func TestEveryAlgorithmMix(t *testing.T) {
	algs := []core.Algorithm{core.FixedWindow, core.SlidingWindow, core.SlidingLog}
	var mixes [][]core.Algorithm
	for _, a := range algs {
		mixes = append(mixes, []core.Algorithm{a})
		for _, b := range algs {
			mixes = append(mixes, []core.Algorithm{a, b})
			for _, c := range algs {
				mixes = append(mixes, []core.Algorithm{a, b, c})
			}
		}
	}
	for name, c := range testredis.Universal(t) {
		t.Run(name, func(t *testing.T) {
			for i, mix := range mixes {
				data := sequence(uint64(i), mix)
				unit, longest := int64(1), int64(1)
				for j := range mix {
					w := 1 + int64(data[3+3*j]%40) // the window, as oracle.Replay decodes it
					unit = lcm(unit, w)
					longest = max(longest, w)
				}
				for _, ahead := range []bool{true, false} {
					t.Run(fmt.Sprint(mix, ahead), func(t *testing.T) {
						by := clockShift(time.Duration(unit)*time.Millisecond, ahead)
						for run := 1; ; run++ {
							s, err := redisstore.New(c, redisstore.WithPrefix(testredis.Prefix(t)), redisstore.WithClientTime())
							require.NoError(t, err)
							w := &expiryWatch{Store: shifted{s, by}, counts: 2 * time.Duration(longest) * time.Millisecond}
							err = oracle.Replay(w, data)
							if err == nil {
								return
							}
							if w.longest < stallLimit {
								t.Fatal(err)
							}
							t.Logf("run %d: %v", run, err)
							t.Logf("run %d: the machine stalled: %v from the start of a call to the end of one within two windows of it, past the %v this test allows (the keys' TTL slack is 1 s on Redis's clock), so Redis may have expired a key the oracle counts", run, w.longest.Round(time.Millisecond), stallLimit)
							if run == 3 {
								t.Fatalf("the machine stalled in each of %d runs", run)
							}
						}
					})
				}
			}
		})
	}
}

// stallLimit is the longest real time expiryWatch lets pass over calls
// within two windows of each other: half the keys' TTL slack, for the
// clocks' granularity and the replies' travel.
const stallLimit = 500 * time.Millisecond

// expiryWatch records how long, in real time, a key the oracle may still
// count has existed when a call reads it. The sequences' windows are
// under a second, so their keys take the full form, which expires window
// + 1 s after its write on Redis's clock (sliding counter: two windows +
// 1 s), while a sequence's own clock moves only between steps: a machine
// stalled for over a second lets Redis expire a key the oracle counts. A
// charge counts for at most two windows of the sequence's clock (the
// sliding counter's previous window), so a call reads no key older, in
// real time, than the time from the start of the first call within two
// windows before it to its own end; longest is the most of that over the
// calls. Under a second, no key the oracle counts can have expired.
// Reset reads no state and is not watched.
type expiryWatch struct {
	core.Store
	counts  time.Duration // two of the mix's longest windows
	calls   []watched
	first   int // the first of calls within counts of the latest
	longest time.Duration
}

// watched is a call's instant on the sequence's clock and its real start.
type watched struct{ now, start time.Time }

// watch runs call, which the sequence makes at now.
func (w *expiryWatch) watch(now time.Time, call func()) {
	w.calls = append(w.calls, watched{now, time.Now()})
	call()
	for now.Sub(w.calls[w.first].now) > w.counts {
		w.first++
	}
	w.longest = max(w.longest, time.Since(w.calls[w.first].start))
}

func (w *expiryWatch) Take(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (r core.Result, err error) {
	w.watch(now, func() { r, err = w.Store.Take(ctx, key, ps, cost, now) })
	return r, err
}

func (w *expiryWatch) Peek(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (r core.Result, err error) {
	w.watch(now, func() { r, err = w.Store.Peek(ctx, key, ps, cost, now) })
	return r, err
}

// sequence encodes mix and 300 random steps the way oracle.CheckSequence
// decodes them: the number of policies, each policy's algorithm, limit and
// window (1 to 8 units per 1 to 40 ms), then steps of three bytes.
func sequence(seed uint64, mix []core.Algorithm) []byte {
	rng := rand.New(rand.NewPCG(seed, 7))
	data := []byte{byte(len(mix) - 1)}
	for _, a := range mix {
		data = append(data, byte(a), byte(rng.IntN(8)), byte(rng.IntN(40)))
	}
	for range 300 {
		data = append(data, byte(rng.IntN(256)), byte(rng.IntN(256)), byte(rng.IntN(256)))
	}
	return data
}

func lcm(a, b int64) int64 {
	x, y := a, b
	for y != 0 {
		x, y = y, x%y
	}
	return a / x * b
}
