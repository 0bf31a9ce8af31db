package main

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestArrivalsRate(t *testing.T) {
	tests := []struct {
		name string
		p    uint64 // per millisecond, in units of 2^-32
		want float64
	}{
		{"2 per 100 ms", 1 << 32 / 50, 0.02},
		{"every other millisecond", 1 << 31, 0.5},
		{"1 per second", 1 << 32 / 1000, 0.001},
		{"certain", 1 << 32, 1},
		{"more than certain is certain", 1 << 40, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Long enough for 40 000 arrivals on average: a standard
			// deviation of 0.5 %, so the 3 % tolerance is six of them.
			length := int64(40_000 / tt.want)
			rng := rand.New(rand.NewPCG(5, 6))
			reqs := arrivals(nil, rng, 0, 0, length, tt.p)
			assert.InEpsilon(t, tt.want*float64(length), float64(len(reqs)), 0.03)
			for i := 1; i < len(reqs); i++ {
				if reqs[i].at <= reqs[i-1].at {
					t.Fatalf("two arrivals in millisecond %d", reqs[i].at)
				}
			}
		})
	}
	assert.Empty(t, arrivals(nil, rand.New(rand.NewPCG(1, 1)), 0, 0, 1_000_000, 0), "probability zero")
}

func TestRate(t *testing.T) {
	s := setup{Limit: 100, Window: 10_000}
	// 2 × L/W = 20 per second = 0.02 per millisecond.
	assert.Equal(t, uint64(1<<32)/50, s.rate(2000))
}
