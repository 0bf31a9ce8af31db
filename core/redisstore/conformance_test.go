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
				s, err := redisstore.New(client, append(opts, redisstore.WithPrefix(testredis.Prefix(t)))...)
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
// the callers' clock ahead of Redis's (compact keys) and behind it (full
// keys): moved by a multiple of every window of the mix.
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
				unit := int64(1)
				for j := range mix {
					unit = lcm(unit, 1+int64(data[3+3*j]%40)) // the window, as CheckSequence decodes it
				}
				for _, ahead := range []bool{true, false} {
					t.Run(fmt.Sprint(mix, ahead), func(t *testing.T) {
						s, err := redisstore.New(c, redisstore.WithPrefix(testredis.Prefix(t)))
						require.NoError(t, err)
						w := &stallWatch{Store: shifted{s, clockShift(time.Duration(unit)*time.Millisecond, ahead)}}
						t.Cleanup(func() { // CheckSequence may stop the test with FailNow
							if t.Failed() && w.longest > time.Second {
								t.Logf("the machine stalled %v between two calls: longer than the keys' TTL slack (1 s on Redis's clock), so Redis may have expired a key this test still counts", w.longest)
							}
						})
						oracle.CheckSequence(t, w, data)
					})
				}
			}
		})
	}
}

// stallWatch records the longest real time between two calls. The
// sequences' windows are under a second, so their keys take the full
// form, which expires window + 1 s after its write on Redis's clock, while
// a sequence's own clock stands still between steps: a machine stalled for
// over a second between two calls lets Redis expire a key the oracle still
// counts. A failure after such a stall says so.
type stallWatch struct {
	core.Store
	last    time.Time
	longest time.Duration
}

func (w *stallWatch) note() {
	now := time.Now()
	if !w.last.IsZero() {
		w.longest = max(w.longest, now.Sub(w.last))
	}
	w.last = now
}

func (w *stallWatch) Take(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
	w.note()
	return w.Store.Take(ctx, key, ps, cost, now)
}

func (w *stallWatch) Peek(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
	w.note()
	return w.Store.Peek(ctx, key, ps, cost, now)
}

func (w *stallWatch) Reset(ctx context.Context, key string, ps []core.Policy) error {
	w.note()
	return w.Store.Reset(ctx, key, ps)
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
