package redisstore_test

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/redisstore"
	"github.com/ratewindow/ratewindow/internal/clocktest"
	"github.com/ratewindow/ratewindow/internal/policytest"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// benchKeys is how many distinct keys the benchmarks spread their calls
// over, so no single key is hot.
const benchKeys = 1024

func benchSetup(b *testing.B, alg core.Algorithm) (*redisstore.Store, []core.Policy, []string) {
	b.Helper()
	s, err := redisstore.New(testredis.Standalone(b), redisstore.WithPrefix(testredis.Prefix(b)))
	require.NoError(b, err)
	// A limit no benchmark reaches: every call evaluates and charges.
	ps, err := policytest.Validate([]core.Policy{core.Per(1_000_000, time.Minute).Using(alg)})
	require.NoError(b, err)
	keys := make([]string, benchKeys)
	for i := range keys {
		keys[i] = fmt.Sprintf("user:%07d", i)
	}
	return s, ps, keys
}

func report(b *testing.B) {
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "decisions/s")
}

// BenchmarkTake is one goroutine: the latency of one decision.
func BenchmarkTake(b *testing.B) {
	for _, alg := range []core.Algorithm{core.FixedWindow, core.SlidingWindow, core.SlidingLog} {
		b.Run(alg.String(), func(b *testing.B) {
			s, ps, keys := benchSetup(b, alg)
			ctx := context.Background()
			now := time.Now()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, err := s.Take(ctx, keys[i%benchKeys], ps, 1, now); err != nil {
					b.Fatal(err)
				}
				i++
			}
			report(b)
		})
	}
}

// BenchmarkTakeParallel runs GOMAXPROCS×32 goroutines: the throughput of
// one client.
func BenchmarkTakeParallel(b *testing.B) {
	for _, alg := range []core.Algorithm{core.FixedWindow, core.SlidingWindow, core.SlidingLog} {
		b.Run(alg.String(), func(b *testing.B) {
			s, ps, keys := benchSetup(b, alg)
			ctx := context.Background()
			now := time.Now()
			var next atomic.Int64
			b.ReportAllocs()
			b.SetParallelism(32)
			b.RunParallel(func(pb *testing.PB) {
				i := int(next.Add(1)) * 7919
				for pb.Next() {
					if _, err := s.Take(ctx, keys[i%benchKeys], ps, 1, now); err != nil {
						b.Error(err)
						return
					}
					i++
				}
			})
			report(b)
			b.ReportMetric(float64(32*runtime.GOMAXPROCS(0)), "goroutines")
		})
	}
}

// BenchmarkWeightedLog is AllowN on a sliding log of 10^6 per second with
// a cost of 1 and a cost of the whole limit, spread over benchKeys keys: a
// request's weight must cost neither script time nor memory. The fake
// clock moves on between calls so that every call is admitted: the store
// decides on it (WithClientTime).
func BenchmarkWeightedLog(b *testing.B) {
	const limit = 1_000_000
	for _, cost := range []int64{1, limit} {
		b.Run(fmt.Sprintf("cost=%d", cost), func(b *testing.B) {
			s, err := redisstore.New(testredis.Standalone(b), redisstore.WithPrefix(testredis.Prefix(b)), redisstore.WithClientTime())
			require.NoError(b, err)
			clock := clocktest.New(time.Now())
			l, err := core.NewLimiter(s, []core.Policy{core.Per(limit, time.Second).Using(core.SlidingLog)}, core.WithClock(clock))
			require.NoError(b, err)
			keys := make([]string, benchKeys)
			for i := range keys {
				keys[i] = fmt.Sprintf("user:%07d", i)
			}
			ctx := context.Background()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				// A key comes back every benchKeys calls, 2 s later.
				clock.Advance(2 * time.Millisecond)
				if d, err := l.AllowN(ctx, keys[i%benchKeys], cost); err != nil || !d.Allowed {
					b.Fatal(err, d.Allowed)
				}
				i++
			}
			report(b)
		})
	}
}
