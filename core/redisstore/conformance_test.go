package redisstore_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/internal/oracle"
	"github.com/ratewindow/ratewindow/core/redisstore"
	"github.com/ratewindow/ratewindow/core/storetest"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

func conformance(t *testing.T, client redis.UniversalClient, opts ...redisstore.Option) {
	storetest.Run(t, func(t *testing.T) core.Store {
		s, err := redisstore.New(client, append(opts, redisstore.WithPrefix(testredis.Prefix(t)))...)
		require.NoError(t, err)
		return s
	})
}

func TestConformanceStandalone(t *testing.T) {
	conformance(t, testredis.Standalone(t))
}

func TestConformanceCluster(t *testing.T) {
	conformance(t, testredis.Cluster(t))
}

// Every mix of algorithms, one to three policies (each algorithm alone,
// twice, with each other), runs through the script that serves it (one.lua
// for one policy, many.lua for more) and decides as the conformance
// suite's oracle does, on random sequences of Take, Peek and Reset.
func TestEveryAlgorithmMix(t *testing.T) {
	algs := []core.Algorithm{core.FixedWindow, core.SlidingWindow, core.SlidingLog}
	var mixes [][]core.Algorithm
	for _, a := range algs {
		mixes = append(mixes, []core.Algorithm{a})
		for _, b := range algs {
			mixes = append(mixes, []core.Algorithm{a, b})
			for _, c := range algs {
				mixes = append(mixes, []core.Algorithm{a, b, c})
			}
		}
	}
	for name, c := range testredis.Universal(t) {
		t.Run(name, func(t *testing.T) {
			for i, mix := range mixes {
				t.Run(fmt.Sprint(mix), func(t *testing.T) {
					s, err := redisstore.New(c, redisstore.WithPrefix(testredis.Prefix(t)))
					require.NoError(t, err)
					oracle.CheckSequence(t, s, sequence(uint64(i), mix))
				})
			}
		})
	}
}

// sequence encodes mix and 300 random steps the way oracle.CheckSequence
// decodes them: the number of policies, each policy's algorithm, limit and
// window (1 to 8 units per 1 to 40 ms), then steps of three bytes.
func sequence(seed uint64, mix []core.Algorithm) []byte {
	rng := rand.New(rand.NewPCG(seed, 7))
	data := []byte{byte(len(mix) - 1)}
	for _, a := range mix {
		data = append(data, byte(a), byte(rng.IntN(8)), byte(rng.IntN(40)))
	}
	for range 300 {
		data = append(data, byte(rng.IntN(256)), byte(rng.IntN(256)), byte(rng.IntN(256)))
	}
	return data
}
