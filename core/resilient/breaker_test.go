package resilient_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/resilient"
	"github.com/ratewindow/ratewindow/internal/clocktest"
)

// transitions records OnStateChange calls.
type transitions struct {
	mu  sync.Mutex
	got []string
}

func (tr *transitions) record(from, to resilient.State) {
	tr.mu.Lock()
	tr.got = append(tr.got, from.String()+"->"+to.String())
	tr.mu.Unlock()
}

func (tr *transitions) list() []string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return append([]string(nil), tr.got...)
}

func TestBreakerCycle(t *testing.T) {
	ctx := context.Background()
	ps := policies(core.PerSecond(100))
	d := newDouble()
	clock := clocktest.New(t0)
	var tr transitions
	s, err := resilient.New(d,
		resilient.WithFailureThreshold(3),
		resilient.WithOpenInterval(2*time.Second),
		clocktest.Option[resilient.Option](clock),
		resilient.WithOnStateChange(tr.record))
	require.NoError(t, err)

	d.down.Store(true)
	for i := range 3 {
		_, err := s.Take(ctx, "k", ps, 1, t0)
		require.ErrorIs(t, err, errDown, "call %d goes to the primary", i)
		assert.NotErrorIs(t, err, resilient.ErrCircuitOpen)
	}
	assert.Equal(t, resilient.Open, s.State())
	assert.Equal(t, int64(3), d.calls.Load())

	// Open: a hundred calls, none reaches the primary.
	for range 100 {
		_, err := s.Take(ctx, "k", ps, 1, t0)
		require.ErrorIs(t, err, resilient.ErrCircuitOpen)
		_, err = s.Peek(ctx, "k", ps, 1, t0)
		require.ErrorIs(t, err, resilient.ErrCircuitOpen)
	}
	require.ErrorIs(t, s.Reset(ctx, "k", ps), resilient.ErrCircuitOpen)
	assert.Equal(t, int64(3), d.calls.Load())

	// Just before the interval ends: still open.
	clock.Advance(2*time.Second - time.Millisecond)
	_, err = s.Take(ctx, "k", ps, 1, t0)
	require.ErrorIs(t, err, resilient.ErrCircuitOpen)

	// The probe fails: open again for a whole interval.
	clock.Advance(time.Millisecond)
	_, err = s.Take(ctx, "k", ps, 1, t0)
	require.ErrorIs(t, err, errDown)
	assert.Equal(t, int64(4), d.calls.Load())
	assert.Equal(t, resilient.Open, s.State())
	clock.Advance(time.Second)
	_, err = s.Take(ctx, "k", ps, 1, t0)
	require.ErrorIs(t, err, resilient.ErrCircuitOpen)

	// The primary recovers; the next probe closes the breaker.
	d.down.Store(false)
	clock.Advance(time.Second)
	r, err := s.Take(ctx, "k", ps, 1, t0)
	require.NoError(t, err)
	assert.True(t, r.States[0].Allowed)
	assert.Equal(t, resilient.Closed, s.State())

	assert.Equal(t, []string{
		"closed->open", "open->half-open", "half-open->open", "open->half-open", "half-open->closed",
	}, tr.list())
	st := s.Stats()
	assert.Equal(t, int64(4), st.PrimaryErrors)
	assert.Equal(t, int64(203), st.FastFails)
}

func TestBreakerNeedsConsecutiveFailures(t *testing.T) {
	ctx := context.Background()
	ps := policies(core.PerSecond(100))
	d := newDouble()
	s, err := resilient.New(d, resilient.WithFailureThreshold(3), clocktest.Option[resilient.Option](clocktest.New(t0)))
	require.NoError(t, err)
	for range 10 {
		d.down.Store(true)
		for range 2 {
			_, err := s.Take(ctx, "k", ps, 1, t0)
			require.ErrorIs(t, err, errDown)
		}
		d.down.Store(false)
		_, err := s.Take(ctx, "k", ps, 1, t0)
		require.NoError(t, err)
	}
	assert.Equal(t, resilient.Closed, s.State())
}

func TestBreakerIgnoresCallerErrors(t *testing.T) {
	ps := policies(core.PerSecond(100))
	for _, callerErr := range []error{
		fmt.Errorf("store: %w", core.ErrInvalidCost),
		fmt.Errorf("store: %w", core.ErrEmptyKey),
		fmt.Errorf("store: %w", core.ErrInvalidConfig),
	} {
		t.Run(callerErr.Error(), func(t *testing.T) {
			d := newDouble()
			d.err.Store(&callerErr)
			s, err := resilient.New(d, resilient.WithFailureThreshold(1), resilient.WithFallback(1))
			require.NoError(t, err)
			for range 5 {
				_, err := s.Take(context.Background(), "k", ps, 1, t0)
				require.ErrorIs(t, err, callerErr, "a caller error is returned as is, not hidden by the fallback")
			}
			assert.Equal(t, resilient.Closed, s.State())
			assert.Equal(t, int64(5), d.calls.Load())
		})
	}
}

func TestBreakerCountsDeadlinesNotCancellations(t *testing.T) {
	ps := policies(core.PerSecond(100))
	d := newDouble()
	d.block.Store(true)
	s, err := resilient.New(d, resilient.WithFailureThreshold(2), clocktest.Option[resilient.Option](clocktest.New(t0)))
	require.NoError(t, err)

	// A caller that gives up is not the store's fault.
	for range 3 {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(time.Millisecond, cancel)
		_, err := s.Take(ctx, "k", ps, 1, t0)
		require.ErrorIs(t, err, context.Canceled)
	}
	assert.Equal(t, resilient.Closed, s.State())

	// A store that does not answer in time is.
	for range 2 {
		ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
		_, err := s.Take(ctx, "k", ps, 1, t0)
		cancel()
		require.ErrorIs(t, err, context.DeadlineExceeded)
	}
	assert.Equal(t, resilient.Open, s.State())
}

func TestDoneContextSkipsPrimary(t *testing.T) {
	ps := policies(core.PerSecond(100))
	d := newDouble()
	s, err := resilient.New(d, resilient.WithFailureThreshold(1))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), -time.Second)
	defer cancel()
	_, err = s.Take(ctx, "k", ps, 1, t0)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Equal(t, int64(0), d.calls.Load())
	assert.Equal(t, resilient.Closed, s.State(), "an expired context says nothing about the primary")
}

func TestHalfOpenLetsOneProbeThrough(t *testing.T) {
	ps := policies(core.PerSecond(100))
	d := newDouble()
	d.entered = make(chan struct{}, 1)
	clock := clocktest.New(t0)
	s, err := resilient.New(d, resilient.WithFailureThreshold(1), clocktest.Option[resilient.Option](clock))
	require.NoError(t, err)

	d.down.Store(true)
	_, err = s.Take(context.Background(), "k", ps, 1, t0)
	require.ErrorIs(t, err, errDown)
	require.Equal(t, resilient.Open, s.State())

	d.down.Store(false)
	d.block.Store(true)
	clock.Advance(time.Second)
	probeCtx, release := context.WithCancel(context.Background())
	probeDone := make(chan error, 1)
	go func() {
		_, err := s.Take(probeCtx, "k", ps, 1, t0)
		probeDone <- err
	}()
	<-d.entered // the probe is inside the primary
	assert.Equal(t, resilient.HalfOpen, s.State())
	for range 50 {
		_, err := s.Take(context.Background(), "k", ps, 1, t0)
		require.ErrorIs(t, err, resilient.ErrCircuitOpen)
	}
	assert.Equal(t, int64(2), d.calls.Load(), "only the probe reached the primary")

	// The probe's caller gives up: neither verdict, the next call probes.
	release()
	require.ErrorIs(t, <-probeDone, context.Canceled)
	assert.Equal(t, resilient.HalfOpen, s.State())
	d.block.Store(false)
	_, err = s.Take(context.Background(), "k", ps, 1, t0)
	require.NoError(t, err)
	assert.Equal(t, resilient.Closed, s.State())
}

func TestBreakerSurvivesClockStepBack(t *testing.T) {
	ps := policies(core.PerSecond(100))
	d := newDouble()
	clock := clocktest.New(t0)
	s, err := resilient.New(d, resilient.WithFailureThreshold(1), resilient.WithOpenInterval(time.Second), clocktest.Option[resilient.Option](clock))
	require.NoError(t, err)
	d.down.Store(true)
	_, err = s.Take(context.Background(), "k", ps, 1, t0)
	require.ErrorIs(t, err, errDown)
	require.Equal(t, resilient.Open, s.State())

	d.down.Store(false)
	clock.Advance(-time.Hour) // an NTP step back
	_, err = s.Take(context.Background(), "k", ps, 1, t0)
	require.NoError(t, err, "the probe goes through instead of waiting an hour")
	assert.Equal(t, resilient.Closed, s.State())
}

// panicky is a store whose calls panic while armed, as a faulty client
// hook would; net/http recovers such a panic and serves the next request.
type panicky struct {
	*double
	armed bool
}

func (p *panicky) Take(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
	if p.armed {
		panic("primary panics")
	}
	return p.double.Take(ctx, key, ps, cost, now)
}

// A probe whose primary call panics does not leave the breaker half-open
// for good: it counts as a failure, and the next interval probes again.
func TestPanickingProbeReopens(t *testing.T) {
	ps := policies(core.PerSecond(100))
	p := &panicky{double: newDouble()}
	clock := clocktest.New(t0)
	s, err := resilient.New(p, resilient.WithFailureThreshold(1), clocktest.Option[resilient.Option](clock))
	require.NoError(t, err)
	p.down.Store(true)
	_, err = s.Take(context.Background(), "k", ps, 1, t0)
	require.ErrorIs(t, err, errDown)
	require.Equal(t, resilient.Open, s.State())

	clock.Advance(time.Second)
	p.armed = true
	require.Panics(t, func() { _, _ = s.Take(context.Background(), "k", ps, 1, t0) })
	assert.Equal(t, resilient.Open, s.State(), "the panicked probe failed")

	p.armed = false
	p.down.Store(false)
	clock.Advance(time.Second)
	_, err = s.Take(context.Background(), "k", ps, 1, t0)
	require.NoError(t, err, "the next interval probes again")
	assert.Equal(t, resilient.Closed, s.State())
}

// A call outside the Store contract (no policy, too many, a cost that is
// not positive) is refused as the caller's mistake, with the breaker open
// as closed: it never reaches the fallback, whose local store would panic
// on it, nor counts for the breaker.
func TestBadCallWhileOpen(t *testing.T) {
	d := newDouble()
	s, err := resilient.New(d, resilient.WithFailureThreshold(1), resilient.WithFallback(2), resilient.WithDenyCache())
	require.NoError(t, err)
	ps := policies(core.PerSecond(5))
	five := append(policies(core.PerSecond(5)), ps[0], ps[0], ps[0], ps[0])
	for _, open := range []bool{false, true} {
		if open {
			d.down.Store(true)
			_, _ = s.Take(context.Background(), "k", ps, 1, t0)
			require.Equal(t, resilient.Open, s.State())
		}
		for name, call := range map[string]func() error{
			"no policy": func() error { _, err := s.Take(context.Background(), "k", nil, 1, t0); return err },
			"five":      func() error { _, err := s.Take(context.Background(), "k", five, 1, t0); return err },
			"peek none": func() error { _, err := s.Peek(context.Background(), "k", nil, 1, t0); return err },
		} {
			require.NotPanics(t, func() { err = call() }, name)
			assert.ErrorIs(t, err, core.ErrInvalidConfig, name)
		}
		_, err = s.Take(context.Background(), "k", ps, 0, t0)
		assert.ErrorIs(t, err, core.ErrInvalidCost)
	}
	assert.Equal(t, int64(1), d.calls.Load(), "only the failure that opened the breaker reached the primary")
}
