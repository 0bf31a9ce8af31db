package resilient_test

import (
	"context"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/core/resilient"
	"github.com/ratewindow/ratewindow/internal/clocktest"
)

// A limiter over a resilient Store is refused what its primary refuses: a
// memory store with WithMaxKeys refuses a sliding log it cannot hold.
func TestCheckPoliciesAsksThePrimary(t *testing.T) {
	s, err := resilient.New(memory.New(memory.WithMaxKeys(16)))
	require.NoError(t, err)
	heavy := core.PerMinute(1000).Using(core.SlidingLog)

	_, err = core.NewLimiter(s, []core.Policy{heavy})
	require.ErrorIs(t, err, core.ErrInvalidConfig)
	assert.ErrorContains(t, err, "resilient: primary store: memory: ")
	assert.ErrorContains(t, err, "WithMaxKeys(16)")

	l, err := core.NewLimiter(s, []core.Policy{core.PerMinute(1000)})
	require.NoError(t, err, "a counter fits")
	require.ErrorIs(t, l.SetPolicies(heavy), core.ErrInvalidConfig)
	assert.Equal(t, core.SlidingWindow, l.Policies()[0].Algorithm, "a refused SetPolicies changes nothing")
}

// With WithFallback, the local fallback store (16 shards of
// WithLocalMaxKeys/16 units) must hold one key's entries too, under the
// Limits divided by the replicas; without it, nothing local is checked.
func TestCheckPoliciesChecksTheFallback(t *testing.T) {
	log := []core.Policy{core.PerMinute(100).Using(core.SlidingLog)} // up to 54 units
	cases := []struct {
		name string
		opts []resilient.Option
		want string // "" when accepted
	}{
		{"a share of 54", []resilient.Option{resilient.WithFallback(1), resilient.WithLocalMaxKeys(16 * 54)}, ""},
		{"a share of 53", []resilient.Option{resilient.WithFallback(1), resilient.WithLocalMaxKeys(16*54 - 1)},
			"resilient: the local fallback store (WithFallback(1)"},
		{"the fallback's limit is divided", []resilient.Option{resilient.WithFallback(2), resilient.WithLocalMaxKeys(16*54 - 1)}, ""},
		{"no fallback", []resilient.Option{resilient.WithDenyCache(), resilient.WithLocalMaxKeys(1)}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, err := resilient.New(memory.New(), tc.opts...)
			require.NoError(t, err)
			_, err = core.NewLimiter(s, log)
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, core.ErrInvalidConfig)
			assert.ErrorContains(t, err, tc.want)
			assert.ErrorContains(t, err, "WithLocalMaxKeys")
			assert.ErrorContains(t, err, "use WithMaxKeys(864) or more")
		})
	}
}

// The default fallback holds ordinary sliding logs whatever the number of
// CPUs: with the memory store's default of 16 shards per CPU, 64 CPUs would
// split its 100,000 units into shares of 97, too few for a log of 200
// records. And it enforces them exactly while the primary is down.
func TestDefaultFallbackHoldsOrdinaryLogs(t *testing.T) {
	procs := runtime.GOMAXPROCS(64)
	d := newDouble()
	s, err := resilient.New(d, resilient.WithFallback(1))
	runtime.GOMAXPROCS(procs)
	require.NoError(t, err)

	// 54 + 504 + 5,004 units: within a share of 6,250.
	ps := []core.Policy{
		core.PerSecond(100).Using(core.SlidingLog),
		core.PerMinute(1000).Using(core.SlidingLog),
		core.PerHour(10_000).Using(core.SlidingLog),
	}
	clock := clocktest.New(t0)
	l, err := core.NewLimiter(s, ps, core.WithClock(clock))
	require.NoError(t, err)

	d.down.Store(true)
	ctx := context.Background()
	admitted := 0
	for i := range 2000 {
		// Other clients come and go; none pushes out the heavy key.
		_, err := l.Allow(ctx, "other-"+strconv.Itoa(i))
		require.NoError(t, err)
		dec, err := l.Allow(ctx, "heavy")
		require.NoError(t, err)
		require.True(t, dec.Fallback)
		if dec.Allowed {
			admitted++
		}
		clock.Advance(20 * time.Millisecond) // 2,000 requests in 40 s
	}
	assert.Equal(t, 1000, admitted, "the fallback admits exactly the minute's limit")
}

// CheckPolicies is exported: an empty set, which no limiter passes, is
// answered, not a panic, with a fallback whose Limits are divided.
func TestCheckPoliciesEmpty(t *testing.T) {
	s, err := resilient.New(memory.New(), resilient.WithFallback(3))
	require.NoError(t, err)
	assert.NotPanics(t, func() { _ = s.CheckPolicies(nil) })
	assert.NotPanics(t, func() { _ = s.CheckPolicies([]core.Policy{}) })
}
