package main

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMaxInWindow(t *testing.T) {
	tests := []struct {
		name     string
		ts       []int64
		w        int64
		wantMost int
		wantAt   int64
	}{
		{"no instants", nil, 10, 0, 0},
		{"window not positive", []int64{1, 2}, 0, 0, 0},
		{"one instant", []int64{7}, 10, 1, 7},
		{"same millisecond", []int64{5, 5, 5}, 10, 3, 5},
		{"interval is open on the left", []int64{0, 10}, 10, 1, 0},
		{"just inside", []int64{0, 9, 10}, 10, 2, 9},
		{"whole list fits", []int64{0, 5, 9}, 10, 3, 9},
		{"later cluster wins", []int64{1, 2, 3, 11, 12, 13, 14}, 10, 4, 14},
		{"first maximum is reported", []int64{0, 1, 20, 21}, 10, 2, 1},
		{"duplicates at the right edge", []int64{0, 10, 10}, 10, 2, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			most, at := maxInWindow(tt.ts, tt.w)
			assert.Equal(t, tt.wantMost, most)
			assert.Equal(t, tt.wantAt, at)
		})
	}
}

// bruteMax counts, for every integer t in a range covering ts, the instants
// in (t − w, t]: it does not rely on the maximum being on an instant.
func bruteMax(ts []int64, w int64) int {
	most := 0
	if len(ts) == 0 {
		return 0
	}
	for t := ts[0] - w; t <= ts[len(ts)-1]+w; t++ {
		n := 0
		for _, x := range ts {
			if x > t-w && x <= t {
				n++
			}
		}
		most = max(most, n)
	}
	return most
}

func randomInstants(rng *rand.Rand, n int, span int64) []int64 {
	ts := make([]int64, n)
	for i := range ts {
		ts[i] = int64(rng.Uint64N(uint64(span)))
	}
	slices.Sort(ts)
	return ts
}

func TestMaxInWindowMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		ts := randomInstants(rng, int(rng.Uint64N(30)), 100)
		w := 1 + int64(rng.Uint64N(40))
		most, at := maxInWindow(ts, w)
		require.Equal(t, bruteMax(ts, w), most, "ts=%v w=%d", ts, w)
		if most > 0 {
			n := 0
			for _, x := range ts {
				if x > at-w && x <= at {
					n++
				}
			}
			require.Equal(t, most, n, "the reported end holds the maximum: ts=%v w=%d", ts, w)
		}
	}
}

func TestTrailing(t *testing.T) {
	tests := []struct {
		name string
		ts   []int64
		w    int64
		want []step
	}{
		{"nothing", nil, 10, nil},
		{"window not positive", []int64{1}, 0, nil},
		{"one instant", []int64{3}, 10, []step{{3, 1}, {13, 0}}},
		{"rise and fall", []int64{0, 5, 5}, 10, []step{{0, 1}, {5, 3}, {10, 2}, {15, 0}}},
		{"arrival as another leaves", []int64{0, 10}, 10, []step{{0, 1}, {20, 0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, trailing(tt.ts, tt.w))
		})
	}
}

func TestTrailingMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 100 {
		ts := randomInstants(rng, 1+int(rng.Uint64N(20)), 60)
		w := 1 + int64(rng.Uint64N(20))
		steps := trailing(ts, w)
		require.NotEmpty(t, steps)
		for x := int64(-1); x <= 60+w; x++ {
			want := 0
			for _, a := range ts {
				if a > x-w && a <= x {
					want++
				}
			}
			got := 0 // the value of the step function at x
			for _, s := range steps {
				if s.At <= x {
					got = s.N
				}
			}
			require.Equal(t, want, got, "ts=%v w=%d at %d", ts, w, x)
		}
	}
}

func TestPerBin(t *testing.T) {
	assert.Equal(t, []int{2, 0, 1}, perBin([]int64{0, 9, 25}, 10, 30))
	assert.Equal(t, []int{1, 1}, perBin([]int64{-1, 0, 10, 30}, 10, 15), "instants outside [0, length) are left out")
	assert.Empty(t, perBin(nil, 10, 0))
}
