package resilient_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/resilient"
	"github.com/ratewindow/ratewindow/internal/clocktest"
)

// A domain that fails opens its own breaker: its keys fail fast, the other
// domains' keys keep reaching the primary, and State reports Open until
// the lost domain's probe closes its breaker.
func TestDomainsFailApart(t *testing.T) {
	ctx := context.Background()
	ps := policies(core.PerSecond(1000))
	z := newZoned()
	clock := clocktest.New(t0)
	var tr transitions
	s, err := resilient.New(z, resilient.WithFailureThreshold(3), resilient.WithOpenInterval(time.Second),
		clocktest.Option[resilient.Option](clock), resilient.WithOnStateChange(tr.record))
	require.NoError(t, err)

	z.setDown("a", true)
	for i := range 3 {
		_, err := s.Take(ctx, "a/1", ps, 1, t0)
		require.ErrorIs(t, err, errDown, "call %d goes to the primary", i)
	}
	for range 10 {
		_, err := s.Take(ctx, "a/2", ps, 1, t0)
		require.ErrorIs(t, err, resilient.ErrCircuitOpen, "every key of the lost domain fails fast")
	}
	require.ErrorIs(t, s.Reset(ctx, "a/1", ps), resilient.ErrCircuitOpen)
	assert.Equal(t, 3, z.count("a"))
	assert.Equal(t, resilient.Open, s.State())

	for i := range 50 {
		r, err := s.Take(ctx, fmt.Sprint("b/", i%5), ps, 1, t0)
		require.NoError(t, err, "the other domains' keys reach the primary")
		assert.True(t, r.States[0].Allowed)
		_, err = s.Peek(ctx, fmt.Sprint("c/", i%5), ps, 1, t0)
		require.NoError(t, err)
	}
	require.NoError(t, s.Reset(ctx, "b/1", ps))
	assert.Equal(t, 51, z.count("b"))
	assert.Equal(t, 50, z.count("c"))
	assert.Equal(t, resilient.Open, s.State(), "while one domain's breaker is open")
	assert.Equal(t, []string{"closed->open"}, tr.list())

	z.setDown("a", false)
	clock.Advance(time.Second)
	_, err = s.Take(ctx, "a/2", ps, 1, t0)
	require.NoError(t, err, "the probe finds the domain back")
	assert.Equal(t, resilient.Closed, s.State())
	assert.Equal(t, []string{"closed->open", "open->half-open", "half-open->closed"}, tr.list())
	assert.Equal(t, int64(11), s.Stats().FastFails)
}

// A primary that does not name domains keeps one breaker for every key.
func TestNoDomainsOneBreaker(t *testing.T) {
	ps := policies(core.PerSecond(1000))
	d := newDouble()
	s, err := resilient.New(d, resilient.WithFailureThreshold(1))
	require.NoError(t, err)
	d.down.Store(true)
	_, err = s.Take(context.Background(), "a/1", ps, 1, t0)
	require.ErrorIs(t, err, errDown)
	d.down.Store(false)
	_, err = s.Take(context.Background(), "b/1", ps, 1, t0)
	require.ErrorIs(t, err, resilient.ErrCircuitOpen)
}

// State is the worst state of the domains' breakers, and the hook sees
// each change of it, in order, with State already the new one.
func TestDomainsAggregateState(t *testing.T) {
	ctx := context.Background()
	ps := policies(core.PerSecond(1000))
	z := newZoned()
	clock := clocktest.New(t0)
	var tr transitions
	var s *resilient.Store
	s, err := resilient.New(z, resilient.WithFailureThreshold(1), resilient.WithOpenInterval(time.Second),
		clocktest.Option[resilient.Option](clock), resilient.WithOnStateChange(func(from, to resilient.State) {
			assert.Equal(t, to, s.State(), "State in the hook")
			tr.record(from, to)
		}))
	require.NoError(t, err)
	take := func(key string) error { _, err := s.Take(ctx, key, ps, 1, t0); return err }

	z.setDown("a", true)
	z.setDown("b", true)
	require.ErrorIs(t, take("a/1"), errDown)
	require.ErrorIs(t, take("b/1"), errDown)
	assert.Equal(t, []string{"closed->open"}, tr.list(), "the second domain to open changes nothing")

	// a recovers while b is still open: the store is not fully trusted.
	z.setDown("a", false)
	clock.Advance(time.Second)
	require.NoError(t, take("a/1"))
	assert.Equal(t, resilient.Open, s.State())
	assert.Equal(t, []string{"closed->open"}, tr.list())

	// b's probe fails, then succeeds.
	require.ErrorIs(t, take("b/1"), errDown)
	assert.Equal(t, resilient.Open, s.State())
	z.setDown("b", false)
	clock.Advance(time.Second)
	require.NoError(t, take("b/1"))
	assert.Equal(t, resilient.Closed, s.State())
	assert.Equal(t, []string{
		"closed->open",
		"open->half-open", "half-open->open", // b's failed probe
		"open->half-open", "half-open->closed", // b's good one
	}, tr.list())
}

// A key whose domain changes (a slot that moved to another master)
// consults the breaker of its new domain.
func TestDomainsKeyMoves(t *testing.T) {
	ps := policies(core.PerSecond(1000))
	z := newZoned()
	s, err := resilient.New(z, resilient.WithFailureThreshold(1), clocktest.Option[resilient.Option](clocktest.New(t0)))
	require.NoError(t, err)
	z.setDown("a", true)
	_, err = s.Take(context.Background(), "a/k", ps, 1, t0)
	require.ErrorIs(t, err, errDown)
	_, err = s.Take(context.Background(), "a/k", ps, 1, t0)
	require.ErrorIs(t, err, resilient.ErrCircuitOpen)

	z.move("a/k", "b")
	_, err = s.Take(context.Background(), "a/k", ps, 1, t0)
	require.NoError(t, err)
	assert.Equal(t, 1, z.count("b"))
}

// Past MaxDomains, further domains share one breaker; while they do, a
// domain no call used for an open interval gives its breaker up.
func TestDomainsShareABreakerPastTheCap(t *testing.T) {
	ctx := context.Background()
	ps := policies(core.PerSecond(1000))
	z := newZoned()
	clock := clocktest.New(t0)
	s, err := resilient.New(z, resilient.WithFailureThreshold(1), resilient.WithOpenInterval(time.Second),
		clocktest.Option[resilient.Option](clock))
	require.NoError(t, err)
	n := resilient.MaxDomains
	key := func(i int) string { return fmt.Sprintf("z%d/k", i) }
	for i := range n + 6 {
		_, err := s.Take(ctx, key(i), ps, 1, t0)
		require.NoError(t, err)
	}
	assert.Equal(t, n, s.DomainBreakers())

	z.setDown(fmt.Sprint("z", n+2), true)
	_, err = s.Take(ctx, key(n+2), ps, 1, t0)
	require.ErrorIs(t, err, errDown)
	for _, i := range []int{n, n + 3, n + 5} {
		_, err = s.Take(ctx, key(i), ps, 1, t0)
		require.ErrorIs(t, err, resilient.ErrCircuitOpen, "z%d shares the breaker past the cap", i)
	}
	_, err = s.Take(ctx, key(5), ps, 1, t0)
	require.NoError(t, err, "a domain with a breaker of its own")
	assert.Equal(t, resilient.Open, s.State())

	clock.Advance(time.Second)
	_, err = s.Take(ctx, key(5), ps, 1, t0)
	require.NoError(t, err)
	assert.Equal(t, 1, s.DomainBreakers(), "the domains unused for an interval gave their breakers up")
	_, err = s.Take(ctx, key(n+3), ps, 1, t0)
	require.NoError(t, err, "z%d has a breaker of its own now", n+3)
	assert.Equal(t, 2, s.DomainBreakers())
}

// A domain no call asks for any more (a master replaced by its replica,
// at another address) does not keep State open for ever: once its breaker
// has been open StaleIntervals intervals past its own without a call, it
// is forgotten. A domain still asked for, however rarely, is not.
func TestDomainsForgetStaleDomain(t *testing.T) {
	ctx := context.Background()
	ps := policies(core.PerSecond(1000))
	z := newZoned()
	clock := clocktest.New(t0)
	var tr transitions
	s, err := resilient.New(z, resilient.WithFailureThreshold(1), resilient.WithOpenInterval(time.Second),
		clocktest.Option[resilient.Option](clock), resilient.WithOnStateChange(tr.record))
	require.NoError(t, err)
	take := func(key string) error { _, err := s.Take(ctx, key, ps, 1, t0); return err }

	z.setDown("gone", true)
	require.ErrorIs(t, take("gone/1"), errDown)
	for range resilient.StaleIntervals {
		clock.Advance(time.Second)
		require.NoError(t, take("b/1"))
		require.Equal(t, resilient.Open, s.State())
	}
	clock.Advance(time.Second)
	require.NoError(t, take("b/1"))
	assert.Equal(t, resilient.Closed, s.State())
	assert.Equal(t, []string{"closed->open", "open->closed"}, tr.list())

	// Asked for again, the domain starts with a closed breaker.
	require.ErrorIs(t, take("gone/1"), errDown)
	assert.Equal(t, 2, z.count("gone"))
	assert.Equal(t, resilient.Open, s.State())

	// A domain asked for once in a long while keeps its breaker: each call
	// probes it, and it opens again.
	for range 4 {
		clock.Advance(30 * time.Second)
		require.ErrorIs(t, take("gone/1"), errDown)
		assert.Equal(t, resilient.Open, s.State())
	}
	assert.Equal(t, 6, z.count("gone"))
	assert.Len(t, tr.list(), 3+2*4)
	assert.NotContains(t, tr.list()[3:], "open->closed")
	assert.NotContains(t, tr.list()[3:], "half-open->closed")
}

// Domains failing and recovering concurrently: the hook sees a sequence
// of changes in which each starts where the last ended, and State ends
// closed once every domain is back.
func TestDomainsConcurrentTransitions(t *testing.T) {
	ctx := context.Background()
	ps := policies(core.PerSecond(1_000_000))
	z := newZoned()
	var mu sync.Mutex
	var seen [][2]resilient.State
	s, err := resilient.New(z, resilient.WithFailureThreshold(2), resilient.WithOpenInterval(time.Millisecond),
		resilient.WithFallback(1), resilient.WithOnStateChange(func(from, to resilient.State) {
			mu.Lock()
			seen = append(seen, [2]resilient.State{from, to})
			mu.Unlock()
		}))
	require.NoError(t, err)
	const zones = 8
	key := func(r *rand.Rand) string { return fmt.Sprintf("z%d/%d", r.IntN(zones), r.IntN(4)) }

	stop := make(chan struct{})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 1))
			for {
				select {
				case <-stop:
					return
				default:
				}
				_, _ = s.Take(ctx, key(r), ps, 1, time.Now())
				_, _ = s.Peek(ctx, key(r), ps, 1, time.Now())
			}
		})
	}
	r := rand.New(rand.NewPCG(42, 1))
	for range 100 {
		z.setDown(fmt.Sprint("z", r.IntN(zones)), r.IntN(2) == 0)
		time.Sleep(time.Millisecond)
	}
	close(stop)
	wg.Wait()

	for i := range zones {
		z.setDown(fmt.Sprint("z", i), false)
	}
	require.Eventually(t, func() bool {
		for i := range zones {
			_, _ = s.Take(ctx, fmt.Sprintf("z%d/0", i), ps, 1, time.Now())
		}
		return s.State() == resilient.Closed
	}, 5*time.Second, 2*time.Millisecond)

	mu.Lock()
	defer mu.Unlock()
	require.NotEmpty(t, seen)
	t.Logf("%d changes of State", len(seen))
	last := resilient.Closed
	for i, c := range seen {
		require.Equal(t, last, c[0], "change %d starts where the last ended", i)
		require.NotEqual(t, c[0], c[1], "change %d changes", i)
		last = c[1]
	}
	assert.Equal(t, resilient.Closed, last)
}

// A clock that steps back while a domain's breaker is open (an NTP step)
// does not stretch how long the gone domain holds State open: it is
// forgotten about StaleIntervals open intervals after the step, as it
// would have been without it, not once the clock is back where it was.
func TestDomainsForgetStaleDomainAfterClockStepBack(t *testing.T) {
	ctx := context.Background()
	ps := policies(core.PerSecond(1000))
	z := newZoned()
	clock := clocktest.New(t0)
	s, err := resilient.New(z, resilient.WithFailureThreshold(1), resilient.WithOpenInterval(time.Second),
		clocktest.Option[resilient.Option](clock))
	require.NoError(t, err)
	take := func(key string) error { _, err := s.Take(ctx, key, ps, 1, t0); return err }

	z.setDown("gone", true)
	require.ErrorIs(t, take("gone/1"), errDown)
	require.Equal(t, resilient.Open, s.State())
	clock.Advance(-time.Hour)
	for range 3 * resilient.StaleIntervals {
		clock.Advance(time.Second)
		require.NoError(t, take("b/1"))
	}
	assert.Equal(t, resilient.Closed, s.State(), "the gone domain is forgotten within about StaleIntervals of the step")
}
