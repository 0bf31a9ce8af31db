package redisstore_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// The memory store and the Redis store decide alike on the same random
// sequences of Take, Peek and Reset: time mostly moves forward and
// sometimes steps back, beyond a window too (the states then rebase), under
// every algorithm, one policy or several (both drivers), with the callers'
// clock ahead of Redis's (compact keys) and behind it (full keys), on a
// standalone Redis and a cluster. The windows are a minute or more, so no
// Redis key expires in real time during the test.
//
// Each key has a memory store of its own. A memory store reclaims a state
// once any call's clock has passed its window, as Redis's TTL does in
// Redis's own time: on this fake clock, which steps back into windows
// long passed, Redis would still hold what the memory store reclaimed when
// another key's call swept it. (A state ahead of the clock is never
// reclaimed; core/memory's TestFutureStatesAreKept checks it.)
func TestMemoryAndRedisAgree(t *testing.T) {
	for name, c := range testredis.Universal(t) {
		t.Run(name, func(t *testing.T) { memoryAndRedisAgree(t, c) })
	}
}

func memoryAndRedisAgree(t *testing.T, c redis.UniversalClient) {
	ctx := context.Background()
	windows := []time.Duration{time.Minute, 90 * time.Second, 2 * time.Minute, 5 * time.Minute}
	for _, clock := range []struct {
		name string
		base time.Time
	}{
		{"ClockAhead", time.Now().Add(24 * time.Hour).Truncate(30 * time.Minute)},
		{"ClockBehind", time.Now().Add(-24 * time.Hour).Truncate(30 * time.Minute)},
	} {
		for seed := range uint64(16) {
			rng := rand.New(rand.NewPCG(seed, 23))
			var ps []core.Policy
			for i := range 1 + rng.IntN(3) {
				alg := core.Algorithm(rng.IntN(3))
				if seed < 3 {
					alg = core.Algorithm(seed) // each algorithm on its own
				}
				w := windows[rng.IntN(len(windows))]
				ps = append(ps, core.Per(1+rng.Int64N(8), w).Using(alg).Named(strconv.Itoa(i)))
			}
			ps = policies(t, ps...)
			t.Run(fmt.Sprint(clock.name, "/", seed), func(t *testing.T) {
				redisStore, _ := store(t, c)
				mem := map[string]core.Store{}
				at := time.Duration(rng.IntN(60_000_000)) * time.Microsecond
				history := map[string][]string{} // each key's calls, for a failure's message
				for step := range 400 {
					if rng.IntN(20) == 0 {
						at -= time.Duration(rng.IntN(720)) * time.Second // a step back
					} else {
						at += time.Duration(rng.IntN(42_000_000)) * time.Microsecond
					}
					now := clock.base.Add(at)
					key := "k" + strconv.Itoa(rng.IntN(2))
					if mem[key] == nil {
						mem[key] = memory.New()
					}
					cost := 1 + rng.Int64N(3)
					var got, want core.Result
					var err error
					call := "Take"
					switch rng.IntN(10) {
					case 0, 1:
						call = "Peek"
						got, err = redisStore.Peek(ctx, key, ps, cost, now)
						require.NoError(t, err)
						want, err = mem[key].Peek(ctx, key, ps, cost, now)
					case 2:
						if rng.IntN(4) == 0 {
							require.NoError(t, redisStore.Reset(ctx, key, ps))
							require.NoError(t, mem[key].Reset(ctx, key, ps))
							history[key] = append(history[key], fmt.Sprintf("%d: Reset", step))
							continue
						}
						fallthrough
					default:
						got, err = redisStore.Take(ctx, key, ps, cost, now)
						require.NoError(t, err)
						want, err = mem[key].Take(ctx, key, ps, cost, now)
					}
					require.NoError(t, err)
					history[key] = append(history[key], fmt.Sprintf("%d: %s at %v cost %d: %v", step, call, at, cost, want.States[:len(ps)]))
					require.Equal(t, want, got, "%s %s, policies %v, its calls:\n%s", call, key, ps, strings.Join(history[key], "\n"))
				}
			})
		}
	}
}
