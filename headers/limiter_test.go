package headers_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/headers"
	"github.com/ratewindow/ratewindow/internal/clocktest"
	"github.com/ratewindow/ratewindow/internal/headerfmt"
)

// Decisions from a real Limiter, written and read back: a client that obeys
// the fields is admitted, and Retry-After is never earlier than t.
func TestWriterWithLimiter(t *testing.T) {
	for _, alg := range []core.Algorithm{core.SlidingWindow, core.FixedWindow, core.SlidingLog} {
		t.Run(alg.String(), func(t *testing.T) {
			clock := clocktest.New(t0)
			lim, err := core.NewLimiter(memory.New(), []core.Policy{
				core.PerSecond(2).Named("burst").Using(alg),
				core.PerMinute(5).Named("steady").Using(alg),
			}, core.WithClock(clock))
			require.NoError(t, err)
			ctx := context.Background()

			denials := 0
			for i := 0; i < 12; i++ {
				d, err := lim.Allow(ctx, "client")
				require.NoError(t, err)
				h, set := capture()
				headers.Writer{AllPolicies: true}.Write(set, &d, clock.Now())
				headerfmt.WriteRetryAfter(set, &d)

				items, err := parseSFList(get(h, "RateLimit"))
				require.NoError(t, err)
				require.Len(t, items, 2)
				for j, it := range items {
					r, _ := it.Param("r")
					tt, _ := it.Param("t")
					require.GreaterOrEqual(t, r, int64(0))
					require.GreaterOrEqual(t, tt, int64(0))
					if !d.States()[j].Allowed {
						assert.Equal(t, int64(0), r, "a denying policy reports r=0")
					}
				}
				if d.Allowed {
					assert.Empty(t, get(h, "Retry-After"))
					clock.Advance(100 * time.Millisecond)
					continue
				}
				denials++
				ra, err := strconv.ParseInt(get(h, "Retry-After"), 10, 64)
				require.NoError(t, err)
				bindT, _ := items[d.Index].Param("t")
				assert.GreaterOrEqual(t, ra, bindT.(int64), "Retry-After not earlier than t")
				assert.GreaterOrEqual(t, ra, int64(1))

				// Obeying Retry-After gets the client in.
				clock.Advance(time.Duration(ra) * time.Second)
				d2, err := lim.Peek(ctx, "client", 1)
				require.NoError(t, err)
				assert.True(t, d2.Allowed, "after waiting Retry-After=%d", ra)
			}
			assert.Positive(t, denials)
		})
	}
}

// Two policies used up by the same request, one for a second and one for a
// minute: the fields that name one policy name the one that waits longer
// (the Decision's binding policy), so a client that comes back after t is
// not refused by the other.
func TestWriterTieNamesTheLongerWait(t *testing.T) {
	clock := clocktest.New(t0)
	lim, err := core.NewLimiter(memory.New(), []core.Policy{
		core.Per(1, time.Second).Named("burst").Using(core.FixedWindow),
		core.Per(1, time.Minute).Named("steady").Using(core.FixedWindow),
	}, core.WithClock(clock))
	require.NoError(t, err)
	d, err := lim.Allow(context.Background(), "client")
	require.NoError(t, err)
	require.True(t, d.Allowed)
	// Fixed windows start on the Unix epoch's multiples: t0 is 5 s into
	// its minute, so "steady" has 55 s to wait and "burst" 1 s.
	for _, tt := range []struct {
		w      headers.Writer
		fields map[string]string
	}{
		{headers.Writer{}, map[string]string{"RateLimit": `"steady";r=0;t=55`}},
		{headers.Writer{Mode: headers.Draft7}, map[string]string{"RateLimit": "limit=1, remaining=0, reset=55"}},
		{headers.Writer{Mode: headers.Draft6}, map[string]string{"RateLimit-Limit": "1", "RateLimit-Remaining": "0", "RateLimit-Reset": "55"}},
		{headers.Writer{Mode: headers.Legacy}, map[string]string{"X-RateLimit-Limit": "1", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "55"}},
		{headers.Writer{Mode: headers.Legacy, LegacyEpoch: true}, map[string]string{"X-RateLimit-Reset": strconv.FormatInt(t0.Unix()+55, 10)}},
	} {
		h, set := capture()
		tt.w.Write(set, &d, clock.Now())
		for name, want := range tt.fields {
			assert.Equal(t, want, get(h, name), "%v %s", tt.w.Mode, name)
		}
	}
}
