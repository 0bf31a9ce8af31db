package resilient_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/resilient"
	"github.com/ratewindow/ratewindow/internal/clocktest"
)

// gate makes the calls of a primary, while hang is set, ignore their
// context and wait until the test answers them (or ends), as a custom
// store with no timeout of its own would on a dead connection.
type gate struct {
	hang atomic.Bool
	// entered receives, for each hung call, the channel its answer comes
	// on: nil lets it go on, an error fails it.
	entered chan chan error
	end     chan struct{} // closed when the test ends
}

func newGate(t *testing.T) *gate {
	g := &gate{entered: make(chan chan error, 8), end: make(chan struct{})}
	t.Cleanup(func() { close(g.end) })
	return g
}

// pass holds a call while hang is set, and returns its answer.
func (g *gate) pass() error {
	if !g.hang.Load() {
		return nil
	}
	answer := make(chan error, 1)
	g.entered <- answer
	select {
	case err := <-answer:
		return err
	case <-g.end:
		return errDown
	}
}

// hanging is a double whose Takes pass a gate.
type hanging struct {
	*double
	*gate
}

func newHanging(t *testing.T) *hanging { return &hanging{double: newDouble(), gate: newGate(t)} }

func (h *hanging) Take(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
	if err := h.pass(); err != nil {
		return core.Result{}, err
	}
	return h.double.Take(ctx, key, ps, cost, now)
}

// stuckProbe opens s's breaker with one failure of h, lets an open
// interval pass, and starts a probe that hangs in h. It returns the
// channel that answers the probe and the one its Take's error comes on.
func stuckProbe(t *testing.T, s *resilient.Store, h *hanging, clock *clocktest.Clock) (answer chan error, done chan error) {
	t.Helper()
	ps := policies(core.PerSecond(100))
	h.down.Store(true)
	_, err := s.Take(context.Background(), "k", ps, 1, t0)
	require.ErrorIs(t, err, errDown)
	require.Equal(t, resilient.Open, s.State())
	h.down.Store(false)

	clock.Advance(time.Second)
	answer, done = hangingCall(t, s, h.gate, "k")
	require.Equal(t, resilient.HalfOpen, s.State())
	return answer, done
}

// hangingCall starts a Take of key that must reach g and hang there. It
// returns the channel that answers it and the one its error comes on.
func hangingCall(t *testing.T, s *resilient.Store, g *gate, key string) (answer chan error, done chan error) {
	t.Helper()
	g.hang.Store(true)
	defer g.hang.Store(false)
	done = make(chan error, 1)
	go func() {
		_, err := s.Take(context.Background(), key, policies(core.PerSecond(100)), 1, t0)
		done <- err
	}()
	select {
	case answer = <-g.entered:
		return answer, done
	case err := <-done:
		t.Fatalf("the call did not reach the primary: %v", err)
		return nil, nil
	}
}

// A probe that never answers holds the half-open slot for one open
// interval, no longer: once the primary is healthy again, the first call
// after that interval probes it and closes the breaker. Whatever the stuck
// probe says when it answers at last, the breaker stays closed.
func TestStuckProbeGivesWayAfterAnInterval(t *testing.T) {
	ps := policies(core.PerSecond(100))
	for _, late := range []struct {
		name   string
		answer error // nil: never, until the test ends
	}{
		{"fails late", errDown},
		{"succeeds late", nil},
		{"never answers", nil},
	} {
		t.Run(late.name, func(t *testing.T) {
			h := newHanging(t)
			clock := clocktest.New(t0)
			var tr transitions
			s, err := resilient.New(h, resilient.WithFailureThreshold(1), resilient.WithOpenInterval(time.Second),
				clocktest.Option[resilient.Option](clock), resilient.WithOnStateChange(tr.record))
			require.NoError(t, err)
			answer, done := stuckProbe(t, s, h, clock)

			// Within the interval the stuck probe still holds the slot.
			clock.Advance(time.Second - time.Millisecond)
			_, err = s.Take(context.Background(), "k", ps, 1, t0)
			require.ErrorIs(t, err, resilient.ErrCircuitOpen)
			assert.Equal(t, resilient.HalfOpen, s.State())

			// An interval after it started, the next call probes.
			clock.Advance(time.Millisecond)
			_, err = s.Take(context.Background(), "k", ps, 1, t0)
			require.NoError(t, err, "the healed primary is reached again")
			require.Equal(t, resilient.Closed, s.State())

			switch late.name {
			case "fails late":
				answer <- late.answer
				require.ErrorIs(t, <-done, errDown)
			case "succeeds late":
				answer <- nil
				require.NoError(t, <-done)
			}
			for range 3 {
				_, err = s.Take(context.Background(), "k", ps, 1, t0)
				require.NoError(t, err)
			}
			assert.Equal(t, resilient.Closed, s.State(), "the late answer changes nothing")
			assert.Equal(t, []string{"closed->open", "open->half-open", "half-open->closed"}, tr.list())
		})
	}
}

// A stuck probe's late answer never overrides what a newer probe found:
// its failure is ignored while a newer probe runs, and its success does
// not close a breaker a newer probe's failure opened. A success with no
// newer verdict in between closes the breaker, so a primary slower than
// the open interval, whose every probe is given up before it answers,
// still gets it closed.
func TestStuckProbeLateAnswers(t *testing.T) {
	ps := policies(core.PerSecond(100))
	setup := func(t *testing.T) (*resilient.Store, *hanging, *clocktest.Clock, chan error, chan error) {
		h := newHanging(t)
		clock := clocktest.New(t0)
		s, err := resilient.New(h, resilient.WithFailureThreshold(1), resilient.WithOpenInterval(time.Second),
			clocktest.Option[resilient.Option](clock))
		require.NoError(t, err)
		answer, done := stuckProbe(t, s, h, clock)
		clock.Advance(time.Second)
		return s, h, clock, answer, done
	}
	t.Run("late failure while a newer probe runs", func(t *testing.T) {
		s, h, _, answer1, done1 := setup(t)
		answer2, done2 := hangingCall(t, s, h.gate, "k")
		answer1 <- errDown
		require.ErrorIs(t, <-done1, errDown)
		assert.Equal(t, resilient.HalfOpen, s.State(), "the stale failure does not reopen")
		_, err := s.Take(context.Background(), "k", ps, 1, t0)
		require.ErrorIs(t, err, resilient.ErrCircuitOpen, "the newer probe still holds the slot")
		answer2 <- nil
		require.NoError(t, <-done2)
		assert.Equal(t, resilient.Closed, s.State())
	})

	t.Run("late success after a newer failure", func(t *testing.T) {
		s, h, clock, answer1, done1 := setup(t)
		answer2, done2 := hangingCall(t, s, h.gate, "k")
		answer2 <- errDown
		require.ErrorIs(t, <-done2, errDown)
		require.Equal(t, resilient.Open, s.State())

		// Half-open again, with a third probe on its way: the first
		// one's success is older news than the second one's failure.
		clock.Advance(time.Second)
		answer3, done3 := hangingCall(t, s, h.gate, "k")
		answer1 <- nil
		require.NoError(t, <-done1)
		assert.Equal(t, resilient.HalfOpen, s.State(), "the newer failure stands")
		_, err := s.Take(context.Background(), "k", ps, 1, t0)
		require.ErrorIs(t, err, resilient.ErrCircuitOpen, "the third probe still holds the slot")
		answer3 <- nil
		require.NoError(t, <-done3)
		assert.Equal(t, resilient.Closed, s.State())
	})

	t.Run("late success while open", func(t *testing.T) {
		s, h, _, answer1, done1 := setup(t)
		answer2, done2 := hangingCall(t, s, h.gate, "k")
		answer2 <- errDown
		require.ErrorIs(t, <-done2, errDown)
		answer1 <- nil
		require.NoError(t, <-done1)
		assert.Equal(t, resilient.Open, s.State(), "the newer failure stands")
		_, err := s.Take(context.Background(), "k", ps, 1, t0)
		require.ErrorIs(t, err, resilient.ErrCircuitOpen)
	})

	t.Run("late success while a newer probe runs", func(t *testing.T) {
		s, h, _, answer1, done1 := setup(t)
		answer2, done2 := hangingCall(t, s, h.gate, "k")
		answer1 <- nil
		require.NoError(t, <-done1)
		assert.Equal(t, resilient.Closed, s.State(), "the primary answers: closed")
		answer2 <- errDown
		require.ErrorIs(t, <-done2, errDown)
		assert.Equal(t, resilient.Closed, s.State(), "the superseded probe's failure is not the breaker's verdict")
		_, err := s.Take(context.Background(), "k", ps, 1, t0)
		require.NoError(t, err)
	})
}

// hangingZones is a zoned primary whose Takes pass a gate.
type hangingZones struct {
	*zoned
	*gate
}

func (z hangingZones) Take(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
	if err := z.pass(); err != nil {
		return core.Result{}, err
	}
	return z.zoned.Take(ctx, key, ps, cost, now)
}

// A domain whose probe never answers, and that no call asks for any
// more, is forgotten like a domain left open: it does not hold State
// half-open for ever.
func TestStuckProbeOfAGoneDomain(t *testing.T) {
	ctx := context.Background()
	ps := policies(core.PerSecond(1000))
	z := hangingZones{zoned: newZoned(), gate: newGate(t)}
	clock := clocktest.New(t0)
	var tr transitions
	s, err := resilient.New(z, resilient.WithFailureThreshold(1), resilient.WithOpenInterval(time.Second),
		clocktest.Option[resilient.Option](clock), resilient.WithOnStateChange(tr.record))
	require.NoError(t, err)
	take := func(key string) error { _, err := s.Take(ctx, key, ps, 1, t0); return err }

	z.setDown("gone", true)
	require.ErrorIs(t, take("gone/1"), errDown)
	clock.Advance(time.Second)
	answer, done := hangingCall(t, s, z.gate, "gone/1")
	require.Equal(t, resilient.HalfOpen, s.State())

	for range resilient.StaleIntervals {
		clock.Advance(time.Second)
		require.NoError(t, take("b/1"))
		require.Equal(t, resilient.HalfOpen, s.State())
	}
	clock.Advance(time.Second)
	require.NoError(t, take("b/1"))
	assert.Equal(t, resilient.Closed, s.State())

	answer <- errDown
	require.ErrorIs(t, <-done, errDown)
	assert.Equal(t, resilient.Closed, s.State(), "the forgotten domain's late answer changes nothing")
	assert.Equal(t, []string{"closed->open", "open->half-open", "half-open->closed"}, tr.list())
}
