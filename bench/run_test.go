package bench

import (
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// latencies are the durations of single operations of one benchmark run.
type latencies []time.Duration

// runConcurrently calls op b.N times in all, with i = 0 to b.N-1, from the
// given number of goroutines (each takes the next i when it is done with
// one), times each call, and fails b on the first error. The timer runs
// from the first call to the last.
func runConcurrently(b *testing.B, goroutines int, op func(i int) error) latencies {
	var (
		next   atomic.Int64
		failed atomic.Bool
		wg     sync.WaitGroup
	)
	per := make([]latencies, goroutines)
	b.ResetTimer()
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lat := make(latencies, 0, b.N/goroutines+1)
			for !failed.Load() {
				i := int(next.Add(1) - 1)
				if i >= b.N {
					break
				}
				start := time.Now()
				if err := op(i); err != nil {
					failed.Store(true)
					b.Error(err)
					break
				}
				lat = append(lat, time.Since(start))
			}
			per[g] = lat
		}()
	}
	wg.Wait()
	b.StopTimer()
	return slices.Concat(per...)
}

// report adds the median and the 99th percentile latency in microseconds
// (p50-us, p99-us).
func (l latencies) report(b *testing.B) {
	if len(l) == 0 {
		return
	}
	slices.Sort(l)
	at := func(q float64) float64 {
		return float64(l[min(int(q*float64(len(l))), len(l)-1)]) / 1e3
	}
	b.ReportMetric(at(0.50), "p50-us")
	b.ReportMetric(at(0.99), "p99-us")
}
