package bench

import (
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// latencies are the durations of single operations of one benchmark run.
type latencies []time.Duration

// runConcurrently calls op b.N times in all, with i = 0 to b.N-1, from the
// given number of goroutines, times each call, and fails b on the first
// error. The timer runs from the first call to the last.
func runConcurrently(b *testing.B, goroutines int, op func(i int) error) latencies {
	// Allocated before the timer starts, so B/op is the limiter's alone.
	lat := make(latencies, b.N)
	b.ResetTimer()
	err := spread(lat, goroutines, op)
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	return lat
}

// spread calls op len(lat) times in all, with i = 0 to len(lat)-1, from
// the given number of goroutines (each takes the next i when it is done
// with one), and stores the duration of call i in lat[i]. It stops at the
// first error and returns it.
func spread(lat latencies, goroutines int, op func(i int) error) error {
	var (
		next  atomic.Int64
		wg    sync.WaitGroup
		once  sync.Once
		first error
		stop  atomic.Bool
	)
	for range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				i := int(next.Add(1) - 1)
				if i >= len(lat) {
					return
				}
				start := time.Now()
				if err := op(i); err != nil {
					once.Do(func() { first = err })
					stop.Store(true)
					return
				}
				lat[i] = time.Since(start)
			}
		}()
	}
	wg.Wait()
	return first
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

// TestSpread checks the runner: every i is done exactly once and timed,
// from as many goroutines as asked, and the first error stops it.
func TestSpread(t *testing.T) {
	const n, goroutines = 10_000, 7
	calls := make([]atomic.Int32, n)
	var inFlight, most atomic.Int32
	lat := make(latencies, n)
	err := spread(lat, goroutines, func(i int) error {
		now := inFlight.Add(1)
		for m := most.Load(); now > m && !most.CompareAndSwap(m, now); m = most.Load() {
		}
		calls[i].Add(1)
		time.Sleep(time.Microsecond)
		inFlight.Add(-1)
		return nil
	})
	require.NoError(t, err)
	for i := range calls {
		require.EqualValues(t, 1, calls[i].Load(), "call %d", i)
		require.Positive(t, lat[i], "call %d", i)
	}
	require.LessOrEqual(t, most.Load(), int32(goroutines))
	require.Greater(t, most.Load(), int32(1), "calls overlap")

	boom := errors.New("boom")
	var done atomic.Int32
	err = spread(make(latencies, n), goroutines, func(i int) error {
		done.Add(1)
		if i == 100 {
			return boom
		}
		return nil
	})
	require.ErrorIs(t, err, boom)
	require.Less(t, done.Load(), int32(n), "the error stops the run")
}
