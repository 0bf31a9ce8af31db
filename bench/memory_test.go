package bench

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/bench/peers"
)

// The in-memory comparison: ratewindow's three algorithms and every peer of
// package peers, with one limit and window for all. The limit is so high
// that a hot key is never denied, so every limiter does its full work
// (evaluate and charge) on every call.
const (
	memLimit  = 1_000_000_000
	memWindow = time.Hour
	// manyKeys is the number of distinct keys of BenchmarkMemoryKeys1M.
	manyKeys = 1_000_000
)

var (
	keysOnce sync.Once
	keys     []string
)

// distinctKeys returns manyKeys distinct 12-byte keys, built once.
func distinctKeys() []string {
	keysOnce.Do(func() {
		keys = make([]string, manyKeys)
		for i := range keys {
			keys[i] = fmt.Sprintf("user:%07d", i)
		}
	})
	return keys
}

// newPeer builds p with the benchmark limit on its own clock.
func newPeer(b *testing.B, p peers.Peer) peers.Limiter {
	l, err := p.New(memLimit, memWindow, nil)
	require.NoError(b, err)
	b.Cleanup(l.Close)
	return l
}

// BenchmarkMemoryHotKey: one key, one goroutine.
func BenchmarkMemoryHotKey(b *testing.B) {
	for _, p := range peers.All() {
		b.Run(p.Name, func(b *testing.B) {
			l := newPeer(b, p)
			b.ReportAllocs()
			cpu := startCPU()
			for b.Loop() {
				l.Allow("user:0000042")
			}
			cpu.report(b)
		})
	}
}

// hotKeyGoroutines are the concurrencies of BenchmarkMemoryHotKeyParallel.
var hotKeyGoroutines = []int{8, 64}

// BenchmarkMemoryHotKeyParallel: one key, many goroutines (a global limit,
// or one large tenant). Sub-benchmarks are named by the number of
// goroutines, b.SetParallelism(⌈n / GOMAXPROCS⌉) × GOMAXPROCS, which is n
// unless GOMAXPROCS does not divide it. ns/op is wall time per decision, so
// a limiter that scales reports less than in BenchmarkMemoryHotKey.
func BenchmarkMemoryHotKeyParallel(b *testing.B) {
	procs := runtime.GOMAXPROCS(0)
	for _, n := range hotKeyGoroutines {
		p := (n + procs - 1) / procs
		b.Run(fmt.Sprintf("goroutines-%d", p*procs), func(b *testing.B) {
			for _, peer := range peers.All() {
				b.Run(peer.Name, func(b *testing.B) {
					l := newPeer(b, peer)
					b.ReportAllocs()
					b.SetParallelism(p)
					cpu := startCPU()
					b.RunParallel(func(pb *testing.PB) {
						for pb.Next() {
							l.Allow("user:0000042")
						}
					})
					cpu.report(b)
				})
			}
		})
	}
}

// BenchmarkMemoryKeys1M: a million distinct keys, each touched in turn. It
// reports B/key, the heap the limiter holds per tracked key after a
// garbage collection (HeapInuse after inserting every key, minus before).
func BenchmarkMemoryKeys1M(b *testing.B) {
	ks := distinctKeys()
	for _, p := range peers.All() {
		if p.Shared {
			continue
		}
		b.Run(p.Name, func(b *testing.B) {
			before := heapInUse()
			l := newPeer(b, p)
			for _, k := range ks {
				l.Allow(k)
			}
			perKey := float64(heapInUse()-before) / float64(len(ks))
			b.ReportAllocs()
			i := 0
			cpu := startCPU()
			for b.Loop() {
				l.Allow(ks[i])
				if i++; i == len(ks) {
					i = 0
				}
			}
			cpu.report(b)
			runtime.KeepAlive(l)
			// After the loop: b.Loop's first call clears reported metrics.
			b.ReportMetric(perKey, "B/key")
		})
	}
}

// BenchmarkMemoryLogStamps measures the sliding log's memory: B/stamp is
// the heap per stored timestamp and B/key-fixed what a key holding one
// timestamp costs beyond that one, from 10,000 keys holding 1 and then
// 1,024 each.
func BenchmarkMemoryLogStamps(b *testing.B) {
	const nkeys, stamps = 10_000, 1024
	ks := distinctKeys()[:nkeys]
	p, err := peers.Find("ratewindow-log")
	require.NoError(b, err)
	b.Run(p.Name, func(b *testing.B) {
		fill := func(n int) (peers.Limiter, int64) {
			before := heapInUse()
			l, err := p.New(stamps, memWindow, nil)
			require.NoError(b, err)
			for _, k := range ks {
				for range n {
					l.Allow(k)
				}
			}
			return l, heapInUse() - before
		}
		one, h1 := fill(1)
		runtime.KeepAlive(one)
		full, hn := fill(stamps)
		perStamp := float64(hn-h1) / float64(nkeys*(stamps-1))
		i := 0
		for b.Loop() {
			full.Allow(ks[i]) // a full log: evaluate and deny
			if i++; i == nkeys {
				i = 0
			}
		}
		runtime.KeepAlive(full)
		b.ReportMetric(perStamp, "B/stamp")
		b.ReportMetric(float64(h1)/nkeys-perStamp, "B/key-fixed")
	})
}

// cpuMeter measures the process's CPU time over a benchmark loop. On a
// machine shared with other work, wall-clock ns/op grows with every time
// slice the benchmark waits for; cpu-ns/op counts only the CPU it used
// (including the garbage collector's), so it stays comparable. In a
// parallel benchmark it is the CPU of all goroutines per decision.
type cpuMeter int64

func startCPU() cpuMeter { return cpuMeter(cpuTime()) }

// report adds cpu-ns/op. Call it after the loop: b.Loop's first call
// clears reported metrics.
func (c cpuMeter) report(b *testing.B) {
	if c == 0 || b.N == 0 {
		return
	}
	b.ReportMetric(float64(cpuTime()-int64(c))/float64(b.N), "cpu-ns/op")
}

// heapInUse returns the heap in use after a full garbage collection.
func heapInUse() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse)
}
