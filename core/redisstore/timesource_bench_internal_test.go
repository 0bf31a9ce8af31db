//go:build unix

package redisstore

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/policytest"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// BenchmarkTimeSource compares the two clocks a store can decide on, from
// GOMAXPROCS×32 goroutines over 1024 keys of a standalone Redis, per
// algorithm: Redis's TIME, read by the script on every decision
// ("server", the default), and the now passed in ("client",
// WithClientTime), here the caller's time.Now(). Like BenchmarkBatchForm
// it reports the CPU time per decision of this process (cpu-ns/op) and of
// redis-server (redis-cpu-ns/op), and the decisions per second.
func BenchmarkTimeSource(b *testing.B) {
	for _, alg := range []core.Algorithm{core.FixedWindow, core.SlidingWindow, core.SlidingLog} {
		for _, source := range []string{"server", "client"} {
			b.Run(alg.String()+"/"+source, func(b *testing.B) {
				c := testredis.Standalone(b)
				opts := []Option{WithPrefix(testredis.Prefix(b))}
				if source == "client" {
					opts = append(opts, WithClientTime())
				}
				s, err := New(c, opts...)
				require.NoError(b, err)
				// A limit no benchmark reaches: every call evaluates and charges.
				ps, err := policytest.Validate([]core.Policy{core.Per(1_000_000, time.Minute).Using(alg)})
				require.NoError(b, err)
				keys := make([]string, 1024)
				for i := range keys {
					keys[i] = fmt.Sprintf("user:%07d", i)
				}
				ctx := context.Background()
				var next atomic.Int64
				client, server := processCPU(), serverCPU(b, c)
				b.SetParallelism(32)
				b.ResetTimer()
				b.RunParallel(func(pb *testing.PB) {
					i := int(next.Add(1)) * 7919
					for pb.Next() {
						if _, err := s.Take(ctx, keys[i%len(keys)], ps, 1, time.Now()); err != nil {
							b.Error(err)
							return
						}
						i++
					}
				})
				b.ReportMetric(float64(processCPU()-client)/float64(b.N), "cpu-ns/op")
				b.ReportMetric(float64(serverCPU(b, c)-server)/float64(b.N), "redis-cpu-ns/op")
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "decisions/s")
				b.ReportMetric(float64(32*runtime.GOMAXPROCS(0)), "goroutines")
			})
		}
	}
}
