package memory

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestHashTableMatchesMap drives the table and a Go map with the same random
// puts and removes (including colliding homes) and requires the same
// contents after every step.
func TestHashTableMatchesMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var tab hashTable[int]
	ref := map[uint64]int{}
	for step := 0; step < 50_000; step++ {
		// A small key space so removes hit and probe runs wrap.
		h := nonZero(rng.Uint64N(3000) * 0x9E3779B97F4A7C15)
		switch rng.IntN(3) {
		case 0:
			require.Equal(t, ref[h] != 0 || hasKey(ref, h), tab.remove(h), "step %d", step)
			delete(ref, h)
		default:
			tab.put(h, step)
			ref[h] = step
		}
		if step%997 == 0 {
			checkSame(t, &tab, ref)
		}
	}
	checkSame(t, &tab, ref)
}

func hasKey(m map[uint64]int, h uint64) bool { _, ok := m[h]; return ok }

func checkSame(t *testing.T, tab *hashTable[int], ref map[uint64]int) {
	t.Helper()
	require.Equal(t, len(ref), tab.n)
	occupied := 0
	for _, sl := range tab.slots {
		if sl.h != 0 {
			occupied++
		}
	}
	require.Equal(t, len(ref), occupied)
	for h, v := range ref {
		got, ok := tab.get(h)
		require.True(t, ok)
		require.Equal(t, v, got)
	}
	require.LessOrEqual(t, tab.n*8, len(tab.slots)*7, "load factor above 7/8")
}

func TestHashTableSweep(t *testing.T) {
	var tab hashTable[int]
	for i := 1; i <= 1000; i++ {
		tab.put(uint64(i)*0x9E3779B97F4A7C15, i)
	}
	odd := func(s *int) bool { return *s%2 == 1 }
	deleted := 0
	for k := uint64(1); deleted < 500 && k < 100_000; k++ {
		start := k * 0x9E3779B97F4A7C15 // sweeps start at well-mixed hashes, like key hashes
		deleted += tab.sweep(start, 0, 0, 16, odd, false, nil)
	}
	require.Equal(t, 500, tab.n)
	for i := 1; i <= 1000; i++ {
		_, ok := tab.get(uint64(i) * 0x9E3779B97F4A7C15)
		require.Equal(t, i%2 == 0, ok, i)
	}
	never := func(*int) bool { return false }
	require.Equal(t, 0, tab.sweep(7, 0, 0, 4, never, false, nil))
	require.Equal(t, 1, tab.sweep(7, 0, 0, 4, never, true, nil))
	require.Equal(t, 499, tab.n)
}
