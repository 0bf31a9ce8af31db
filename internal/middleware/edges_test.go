package middleware

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/internal/clocktest"
)

// deadlineProbe is a memory store that records whether the context of
// its last Take had a deadline.
type deadlineProbe struct {
	core.Store
	hadDeadline bool
}

func (p *deadlineProbe) Take(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
	_, p.hadDeadline = ctx.Deadline()
	return p.Store.Take(ctx, key, ps, cost, now)
}

// Without WithTimeout the flow puts no deadline of its own on the store
// call; with one it does.
func TestStoreCallDeadline(t *testing.T) {
	for _, timeout := range []time.Duration{0, time.Minute} {
		probe := &deadlineProbe{Store: memory.New()}
		l, err := core.NewLimiter(probe, []core.Policy{core.PerMinute(10)},
			core.WithClock(clocktest.New(time.Unix(1_800_000_000, 0))))
		require.NoError(t, err)
		f, err := FromOptions(l, []ratewindow.Option{ratewindow.WithTimeout(timeout)})
		require.NoError(t, err)
		require.True(t, f.Handle(newRecorder("a")))
		assert.Equal(t, timeout > 0, probe.hadDeadline, "timeout %v", timeout)
	}
}

// The shortest timeout accepted is minTimeout itself.
func TestTimeoutOfTheMinimumIsAccepted(t *testing.T) {
	_, err := FromOptions(newLimiter(t, 1), []ratewindow.Option{ratewindow.WithTimeout(minTimeout)})
	require.NoError(t, err)
	_, err = FromOptions(newLimiter(t, 1), []ratewindow.Option{ratewindow.WithTimeout(minTimeout - 1)})
	assert.ErrorIs(t, err, core.ErrInvalidConfig)
}

// The latency a hook sees is that of the store call: never more than the
// whole of Handle took.
func TestHookLatencyIsTheStoreCall(t *testing.T) {
	var got []time.Duration
	f, err := FromOptions(newLimiter(t, 1), []ratewindow.Option{
		ratewindow.WithOnDecision(func(ev ratewindow.Event) { got = append(got, ev.Latency) }),
	})
	require.NoError(t, err)
	for range 2 { // allowed, then denied
		start := time.Now()
		f.Handle(newRecorder("a"))
		took := time.Since(start)
		require.NotEmpty(t, got)
		assert.LessOrEqual(t, got[len(got)-1], took)
	}
	assert.Len(t, got, 2)
}

// A method of exactly the bound is logged whole; a longer one is cut.
func TestFailLogMethodAtTheBound(t *testing.T) {
	logs := captureDefault(t)
	f, err := FromOptions(deadLimiter(t), nil)
	require.NoError(t, err)
	r := newRecorder("a")
	r.MethodValue = strings.Repeat("M", maxMethod)
	require.True(t, f.Handle(r))
	recs := logs.all()
	require.Len(t, recs, 1)
	assert.Equal(t, r.MethodValue, attrs(recs[0])["method"])
}

// Default serves a good limiter, and answers every request 503 when given
// none.
func TestDefault(t *testing.T) {
	assert.True(t, Default(newLimiter(t, 1)).Handle(newRecorder("a")))

	var events []ratewindow.Event
	f := Default(nil)
	f.hook = func(ev ratewindow.Event) { events = append(events, ev) }
	r := newRecorder("a")
	assert.False(t, f.Handle(r))
	assert.Equal(t, http.StatusServiceUnavailable, r.status)
	require.Len(t, events, 1)
	assert.Equal(t, ratewindow.UnclassifiedRejected, events[0].Outcome)
	assert.ErrorIs(t, events[0].Err, ratewindow.ErrNoLimiter)
}
