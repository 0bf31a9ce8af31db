package bench

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/bench/internal/redisenv"
	"github.com/ratewindow/ratewindow/bench/peers"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/core/redisstore"
)

// The sliding log's cost per unit: a request of cost c charges c units,
// and a log keeps every unit until it leaves the window. BenchmarkSlidingLogCost
// sets a request of cost 1 beside one of cost L = logCostLimit on a log of
// limit L, on the memory store and on the standalone Redis.
const (
	logCostLimit  = 1_000_000
	logCostWindow = time.Minute
)

// logCostStore is one store the sliding log runs on: new returns a limiter
// of one sliding-log policy of limit per logCostWindow, reading clk.
type logCostStore struct {
	name string
	new  func(tb testing.TB, limit int64, clk core.Clock) *core.Limiter
}

func logCostStores() []logCostStore {
	return []logCostStore{
		{"memory", func(tb testing.TB, limit int64, clk core.Clock) *core.Limiter {
			l, err := core.NewLimiter(memory.New(), []core.Policy{core.Per(limit, logCostWindow).Using(core.SlidingLog)}, core.WithClock(clk))
			require.NoError(tb, err)
			return l
		}},
		{"redis", func(tb testing.TB, limit int64, clk core.Clock) *core.Limiter {
			// A script charging a million units runs for seconds.
			rdb := redis.NewClient(&redis.Options{Addr: redisenv.Addr(tb), ReadTimeout: 2 * time.Minute})
			tb.Cleanup(func() { _ = rdb.Close() })
			// The store decides on clk, which moves a window per step.
			store, err := redisstore.New(rdb, redisstore.WithPrefix(redisenv.Prefix(tb)), redisstore.WithClientTime())
			require.NoError(tb, err)
			l, err := core.NewLimiter(store, []core.Policy{core.Per(limit, logCostWindow).Using(core.SlidingLog)}, core.WithClock(clk))
			require.NoError(tb, err)
			return l
		}},
	}
}

// logCostStep moves clk one window on, so the log is emptied of the units
// of the previous step, and charges cost units to key; it fails when they
// are not admitted.
func logCostStep(ctx context.Context, l *core.Limiter, clk *peers.FakeTimeline, key string, cost int64) error {
	clk.Sleep(logCostWindow + time.Millisecond) // a record counts until W after its instant rounded up to the ms
	d, err := l.AllowN(ctx, key, cost)
	if err != nil {
		return err
	}
	if !d.Allowed {
		return fmt.Errorf("%d units denied after a window without any", cost)
	}
	return nil
}

// TestSlidingLogCostSteps checks the benchmark's step on each store with
// a small limit: a request of cost L is admitted once per window, and
// nothing more fits until the window has passed.
func TestSlidingLogCostSteps(t *testing.T) {
	const limit = 1000
	ctx := context.Background()
	for _, s := range logCostStores() {
		t.Run(s.name, func(t *testing.T) {
			clk := peers.NewFakeTimeline(time.Now())
			l := s.new(t, limit, clk)
			for range 3 {
				require.NoError(t, logCostStep(ctx, l, clk, "user:0000001", limit))
				d, err := l.Allow(ctx, "user:0000001")
				require.NoError(t, err)
				require.False(t, d.Allowed, "the log holds L units")
			}
		})
	}
}

// BenchmarkSlidingLogCost: one request per window on one key, of cost 1
// and of cost L, so every request prunes the previous request's units and
// charges its own. It reports units/s besides decisions/s, and on Redis
// the server's CPU time per decision (redis-cpu-us/op). One request of
// cost L on Redis takes seconds: run it with a -benchtime of a few
// seconds, or Nx with a small N.
func BenchmarkSlidingLogCost(b *testing.B) {
	ctx := context.Background()
	for _, s := range logCostStores() {
		b.Run(s.name, func(b *testing.B) {
			for _, cost := range []int64{1, logCostLimit} {
				b.Run(fmt.Sprintf("ratewindow-log-cost-%d", cost), func(b *testing.B) {
					clk := peers.NewFakeTimeline(time.Now())
					l := s.new(b, logCostLimit, clk)
					// Warm up: the log's buffer (or the script) in place.
					require.NoError(b, logCostStep(ctx, l, clk, "user:0000001", cost))
					var server redis.UniversalClient
					if s.name == "redis" {
						server = redisenv.Standalone(b, 0)
					}
					b.ReportAllocs()
					cpu := startRedisCPU(server)
					b.ResetTimer()
					for range b.N {
						if err := logCostStep(ctx, l, clk, "user:0000001", cost); err != nil {
							b.Fatal(err)
						}
					}
					b.StopTimer()
					b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "decisions/s")
					b.ReportMetric(float64(b.N)*float64(cost)/b.Elapsed().Seconds(), "units/s")
					cpu.report(b)
				})
			}
		})
	}
}
