package memory_test

import (
	"context"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/internal/clocktest"
	"github.com/ratewindow/ratewindow/internal/policytest"
)

var algorithms = []core.Algorithm{core.FixedWindow, core.SlidingWindow, core.SlidingLog}

func benchLimiter(b *testing.B, alg core.Algorithm, opts ...core.Option) *core.Limiter {
	// A limit no benchmark exhausts, so every decision is a full admission
	// (evaluate and charge), the path real traffic mostly takes.
	l, err := core.NewLimiter(memory.New(), []core.Policy{core.Per(core.MaxLimit, time.Minute).Using(alg)}, opts...)
	if alg == core.SlidingLog {
		// A log keeps every admitted unit: bound it so the benchmark measures
		// the steady state (mostly denials once full), not the allocator.
		l, err = core.NewLimiter(memory.New(), []core.Policy{core.PerSecond(1000).Using(alg)}, opts...)
	}
	if err != nil {
		b.Fatal(err)
	}
	return l
}

// BenchmarkHotKey is one key, one goroutine, on the default clock.
func BenchmarkHotKey(b *testing.B) {
	for _, alg := range algorithms {
		b.Run(alg.String(), func(b *testing.B) {
			l := benchLimiter(b, alg)
			ctx := context.Background()
			// The log's limit is reached at once (see benchLimiter);
			// every other decision must be an admission.
			mustAllow := alg != core.SlidingLog
			b.ReportAllocs()
			for b.Loop() {
				// Use the decision, as a caller does: copying it out
				// is part of the cost.
				if d, err := l.Allow(ctx, "203.0.113.7"); err != nil || (mustAllow && !d.Allowed) {
					b.Fatal(err, d.Allowed)
				}
			}
		})
	}
}

// BenchmarkStoreHotKey is BenchmarkHotKey without the Limiter: Store.Take
// alone, one key, one policy, at a time that moves a millisecond every 1024
// calls. It is the cost of an algorithm on the memory store; the Limiter
// adds the clock read, the request checks and the Decision.
func BenchmarkStoreHotKey(b *testing.B) {
	for _, alg := range []core.Algorithm{core.FixedWindow, core.SlidingWindow} {
		b.Run(alg.String(), func(b *testing.B) {
			s := memory.New()
			policies, err := policytest.Validate([]core.Policy{core.Per(core.MaxLimit, time.Minute).Using(alg)})
			if err != nil {
				b.Fatal(err)
			}
			ctx, now := context.Background(), time.UnixMilli(1_700_000_000_000)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if i&1023 == 0 {
					now = now.Add(time.Millisecond)
				}
				if r, err := s.Take(ctx, "203.0.113.7", policies, 1, now); err != nil || !r.States[0].Allowed {
					b.Fatal(err, r.States[0])
				}
			}
		})
	}
}

// BenchmarkStoreHotKeyParallel is BenchmarkStoreHotKey with 8 and 64
// goroutines on the one key (b.SetParallelism, rounded to a multiple of
// GOMAXPROCS): how the store alone scales on a hot key, without the clock
// read and the Decision that the Limiter adds to every call.
func BenchmarkStoreHotKeyParallel(b *testing.B) {
	procs := runtime.GOMAXPROCS(0)
	for _, alg := range algorithms {
		for _, n := range []int{8, 64} {
			p := (n + procs - 1) / procs
			b.Run(alg.String()+"/goroutines-"+strconv.Itoa(p*procs), func(b *testing.B) {
				s := memory.New()
				limit := int64(core.MaxLimit)
				if alg == core.SlidingLog {
					limit = 1000 // see benchLimiter
				}
				policies, err := policytest.Validate([]core.Policy{core.Per(limit, time.Minute).Using(alg)})
				if err != nil {
					b.Fatal(err)
				}
				ctx, now := context.Background(), time.UnixMilli(1_700_000_000_000)
				b.ReportAllocs()
				b.SetParallelism(p)
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						if _, err := s.Take(ctx, "203.0.113.7", policies, 1, now); err != nil {
							b.Fatal(err)
						}
					}
				})
			})
		}
	}
}

// BenchmarkHotKeyParallel is one key shared by every goroutine.
func BenchmarkHotKeyParallel(b *testing.B) {
	for _, alg := range algorithms {
		b.Run(alg.String(), func(b *testing.B) {
			l := benchLimiter(b, alg)
			ctx := context.Background()
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := l.Allow(ctx, "203.0.113.7"); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// BenchmarkKeysParallel spreads goroutines over many keys, as real traffic
// does: this is the case sharding is for.
func BenchmarkKeysParallel(b *testing.B) {
	keys := makeKeys(1 << 14)
	for _, alg := range algorithms {
		b.Run(alg.String(), func(b *testing.B) {
			l := benchLimiter(b, alg)
			ctx := context.Background()
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				i := 0
				for pb.Next() {
					if _, err := l.Allow(ctx, keys[i&(len(keys)-1)]); err != nil {
						b.Fatal(err)
					}
					i += 7
				}
			})
		})
	}
}

// BenchmarkMillionKeys cycles over 1,000,000 distinct keys (about 12 bytes
// each) and reports the heap held per tracked key.
func BenchmarkMillionKeys(b *testing.B) {
	const n = 1_000_000
	keys := makeKeys(n)
	for _, alg := range []core.Algorithm{core.FixedWindow, core.SlidingWindow} {
		b.Run(alg.String(), func(b *testing.B) {
			ctx := context.Background()
			before := heapInUse()
			l := benchLimiter(b, alg)
			for _, k := range keys {
				if _, err := l.Allow(ctx, k); err != nil {
					b.Fatal(err)
				}
			}
			perKey := float64(heapInUse()-before) / n
			b.ReportAllocs()
			b.ResetTimer()
			i := 0
			for b.Loop() {
				if _, err := l.Allow(ctx, keys[i]); err != nil {
					b.Fatal(err)
				}
				if i++; i == n {
					i = 0
				}
			}
			b.StopTimer()
			// Reported after the loop: ResetTimer clears earlier metrics.
			b.ReportMetric(perKey, "B/key")
			runtime.KeepAlive(l)
		})
	}
}

func makeKeys(n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = "10.0." + strconv.Itoa(i>>8&0xffff) + "." + strconv.Itoa(i&0xff)
	}
	return keys
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// BenchmarkWeightedLog is AllowN on a sliding log of 10^6 per second with
// a cost of 1 and a cost of the whole limit: a request's weight must cost
// neither time nor memory. The fake clock moves a window on between calls,
// so every call is admitted.
func BenchmarkWeightedLog(b *testing.B) {
	const limit = 1_000_000
	for _, cost := range []int64{1, limit} {
		b.Run("cost="+strconv.FormatInt(cost, 10), func(b *testing.B) {
			clock := clocktest.New(time.UnixMilli(1_700_000_000_000))
			l, err := core.NewLimiter(memory.New(), []core.Policy{core.Per(limit, time.Second).Using(core.SlidingLog)}, core.WithClock(clock))
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				clock.Advance(time.Second + time.Millisecond)
				if d, err := l.AllowN(ctx, "203.0.113.7", cost); err != nil || !d.Allowed {
					b.Fatal(err, d.Allowed)
				}
			}
		})
	}
}
