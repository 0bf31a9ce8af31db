package resilient_test

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/resilient"
)

// Eight callers, with costs of 1 and 3, go through a breaker per domain
// while one domain's primary flaps every few milliseconds and the
// limiter's policies change under them (race detector): the fallback
// answers every call of the flapping domain it must, the other domains'
// keys never meet it, the reported changes of State form one chain, and
// State is Closed again once the domain stays up.
func TestFlappingDomainUnderLoad(t *testing.T) {
	z := newZoned()
	var mu sync.Mutex
	var changes []string
	s, err := resilient.New(z, resilient.WithFailureThreshold(2), resilient.WithOpenInterval(5*time.Millisecond),
		resilient.WithFallback(2), resilient.WithDenyCache(),
		resilient.WithOnStateChange(func(from, to resilient.State) {
			mu.Lock()
			changes = append(changes, from.String()+">"+to.String())
			mu.Unlock()
		}))
	require.NoError(t, err)
	sets := [][]core.Policy{
		{core.Per(50, time.Second).Named("s"), core.Per(1000, time.Minute).Named("m")},
		{core.Per(80, time.Second).Named("s"), core.Per(900, time.Minute).Using(core.SlidingLog).Named("m")},
	}
	l, err := core.NewLimiter(s, sets[0])
	require.NoError(t, err)

	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Go(func() { // the flapping domain
		for i := 0; !stop.Load(); i++ {
			z.setDown("b", i%2 == 0)
			time.Sleep(2 * time.Millisecond)
		}
		z.setDown("b", false)
	})
	wg.Go(func() { // policy changes
		for i := 0; !stop.Load(); i++ {
			assert.NoError(t, l.SetPolicies(sets[i%2]...))
			time.Sleep(time.Millisecond)
		}
	})
	var fallbacks, decisions atomic.Int64
	for g := range 8 {
		wg.Go(func() {
			for i := 0; !stop.Load(); i++ {
				zone := []string{"a", "b", "c"}[i%3]
				key := zone + "/" + strconv.Itoa(g*10+i%7)
				d, err := l.AllowN(context.Background(), key, int64(1+2*(g%2)))
				if !assert.NoError(t, err, "a fallback decides what the primary cannot") {
					return
				}
				decisions.Add(1)
				if d.Fallback {
					fallbacks.Add(1)
					assert.Equal(t, "b", zone, "only the flapping domain's keys fall back")
				}
			}
		})
	}
	time.Sleep(300 * time.Millisecond)
	stop.Store(true)
	wg.Wait()
	t.Logf("%d decisions, %d by the fallback", decisions.Load(), fallbacks.Load())
	assert.Positive(t, fallbacks.Load(), "the flapping domain fell back")

	require.Eventually(t, func() bool {
		_, _ = l.Allow(context.Background(), "b/after")
		return s.State() == resilient.Closed
	}, time.Second, 5*time.Millisecond, "closed again once the domain stays up")
	mu.Lock()
	defer mu.Unlock()
	prev := "closed"
	for i, c := range changes {
		from, to, _ := strings.Cut(c, ">")
		require.Equal(t, prev, from, "change %d of %v", i, changes)
		prev = to
	}
	assert.Equal(t, "closed", prev)
}
