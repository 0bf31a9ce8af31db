package redisstore_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/redisstore"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// offsetClock is a process's clock, off the true time by a fixed offset.
type offsetClock struct{ off time.Duration }

func (c offsetClock) Now() time.Time { return time.Now().Add(c.off) }

// processClient returns a new client of its own, as a process of a
// fleet has, of the server testredis.Universal names name.
func processClient(t *testing.T, name string) redis.UniversalClient {
	t.Helper()
	if name == "cluster" {
		return testredis.Cluster(t)
	}
	return testredis.Standalone(t)
}

// fleetProcess returns the limiter of one process of a fleet: a store of
// its own on c, under prefix, deciding on the process's clock with
// clientTime (WithClientTime) or on Redis's; one policy p; and a clock off
// the true time by off.
func fleetProcess(t *testing.T, c redis.UniversalClient, prefix string, clientTime bool, p core.Policy, off time.Duration) *core.Limiter {
	t.Helper()
	opts := []redisstore.Option{redisstore.WithPrefix(prefix)}
	if clientTime {
		opts = append(opts, redisstore.WithClientTime())
	}
	s, err := redisstore.New(c, opts...)
	require.NoError(t, err)
	l, err := core.NewLimiter(s, []core.Policy{p}, core.WithClock(offsetClock{off}))
	require.NoError(t, err)
	return l
}

// TestFleetClockSkew: two processes of one service share one Redis, each
// with its own client and store, and one's clock is 7 s behind the
// other's, more than three windows. They take turns on one key.
//
// By default both decide on Redis's clock and admit the limit between
// them, exactly.
//
// With WithClientTime, on the processes' own clocks, the limit does not
// hold at all: each call of the process behind finds the key more than a
// window ahead of its clock, takes it for a clock that stepped back and
// moves the count to its own window; the next call of the other process
// then finds the key in a window that is over, and starts afresh. Every
// request is admitted (docs/failure-modes.md, Application clocks
// disagree).
func TestFleetClockSkew(t *testing.T) {
	const limit, window, skew = 5, 2 * time.Second, 7 * time.Second
	const calls = 20 * limit
	ctx := context.Background()
	for name := range testredis.Universal(t) {
		for _, alg := range []core.Algorithm{core.FixedWindow, core.SlidingWindow, core.SlidingLog} {
			for _, clientTime := range []bool{false, true} {
				sub := name + "/" + alg.String() + "/default"
				if clientTime {
					sub = name + "/" + alg.String() + "/client-time"
				}
				t.Run(sub, func(t *testing.T) {
					prefix := testredis.Prefix(t)
					process := func(off time.Duration) *core.Limiter {
						return fleetProcess(t, processClient(t, name), prefix, clientTime, core.Per(limit, window).Using(alg), off)
					}
					inStep, behind := process(0), process(-skew)
					// Start early in a window of Redis's clock, so the burst
					// (well under a second) stays in one.
					now, err := testredis.Standalone(t).Time(ctx).Result()
					require.NoError(t, err)
					if into := now.Sub(now.Truncate(window)); into > window/4 {
						time.Sleep(window - into + 10*time.Millisecond)
					}
					admitted := 0
					for i := range calls {
						p := inStep
						if i%2 == 1 {
							p = behind
						}
						d, err := p.Allow(ctx, "shared")
						require.NoError(t, err)
						if d.Allowed {
							admitted++
						}
					}
					if clientTime {
						assert.Equal(t, calls, admitted, "measured in docs/failure-modes.md")
					} else {
						assert.Equal(t, limit, admitted)
					}
				})
			}
		}
	}
}

// TestFleetSkewedPeek: an admin process whose clock is three windows
// behind the service's Peeks a key the service has used up. By default
// the Peek is evaluated on Redis's clock and changes nothing.
//
// With WithClientTime the Peek charges nothing, but on the admin's clock
// the key is more than a window ahead, and the Peek moves it to the
// admin's window as a Take would (docs/algorithms.md, Clock steps): the
// service then finds its window over and admits a second quota.
func TestFleetSkewedPeek(t *testing.T) {
	const limit = 5
	ctx := context.Background()
	for _, alg := range []core.Algorithm{core.FixedWindow, core.SlidingWindow, core.SlidingLog} {
		for _, clientTime := range []bool{false, true} {
			sub := alg.String() + "/default"
			if clientTime {
				sub = alg.String() + "/client-time"
			}
			t.Run(sub, func(t *testing.T) {
				prefix := testredis.Prefix(t)
				process := func(off time.Duration) *core.Limiter {
					return fleetProcess(t, testredis.Standalone(t), prefix, clientTime, core.PerMinute(limit).Using(alg), off)
				}
				service, admin := process(0), process(-3*time.Minute)
				// Not in the last seconds of a minute on Redis's clock, so
				// both bursts fall in one window.
				now, err := testredis.Standalone(t).Time(ctx).Result()
				require.NoError(t, err)
				if left := now.Truncate(time.Minute).Add(time.Minute).Sub(now); left < 3*time.Second {
					time.Sleep(left + 10*time.Millisecond)
				}
				burst := func() int {
					admitted := 0
					for range 2 * limit {
						d, err := service.Allow(ctx, "user:1")
						require.NoError(t, err)
						if d.Allowed {
							admitted++
						}
					}
					return admitted
				}
				require.Equal(t, limit, burst())
				p, err := admin.Peek(ctx, "user:1", 1)
				require.NoError(t, err)
				assert.False(t, p.Allowed, "the admin sees the key used up")
				if clientTime {
					assert.Equal(t, limit, burst(), "a second quota after the Peek")
				} else {
					assert.Zero(t, burst(), "nothing more after the Peek")
				}
			})
		}
	}
}

// TestFleetSkewedLog: one process admits the limit of a sliding log, and
// another whose clock is 0.5 s ahead tries again 0.6 s later. By default
// the records are on Redis's clock and the second burst is denied.
//
// With WithClientTime a sliding log is exact in real time on one clock,
// but across processes only to within their skew: a request recorded on
// the clock of a process behind leaves the window, on the clock of a
// process ahead, that much early. The second process admits the limit
// again: twice the limit within a second of real time.
func TestFleetSkewedLog(t *testing.T) {
	const limit = 5
	ctx := context.Background()
	for _, clientTime := range []bool{false, true} {
		name := "default"
		if clientTime {
			name = "client-time"
		}
		t.Run(name, func(t *testing.T) {
			prefix := testredis.Prefix(t)
			process := func(off time.Duration) *core.Limiter {
				return fleetProcess(t, testredis.Standalone(t), prefix, clientTime, core.PerSecond(limit).Using(core.SlidingLog), off)
			}
			inStep, ahead := process(0), process(500*time.Millisecond)
			burst := func(l *core.Limiter, key string) int {
				admitted := 0
				for range 2 * limit {
					d, err := l.Allow(ctx, key)
					require.NoError(t, err)
					if d.Allowed {
						admitted++
					}
				}
				return admitted
			}
			// The second burst starts once the first one's records are a
			// window old on the clock ahead (0.5 s of real time, and a
			// margin); both must end within a second of real time. On a
			// machine too busy for that, try again on a fresh key.
			for attempt := range 3 {
				key := fmt.Sprintf("user:%d", attempt)
				start := time.Now()
				require.Equal(t, limit, burst(inStep, key))
				time.Sleep(600 * time.Millisecond)
				second := burst(ahead, key)
				if time.Since(start) >= 950*time.Millisecond {
					continue
				}
				if clientTime {
					assert.Equal(t, limit, second, "a second limit within a second of real time")
				} else {
					assert.Zero(t, second)
				}
				return
			}
			t.Fatal("three attempts took a second or more each")
		})
	}
}
