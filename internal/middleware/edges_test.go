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
	"github.com/ratewindow/ratewindow/headers"
	"github.com/ratewindow/ratewindow/internal/clocktest"
	"github.com/ratewindow/ratewindow/keyfuncs"
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

// slowStore is a memory store whose Take takes at least delay.
type slowStore struct {
	core.Store
	delay time.Duration
}

func (s slowStore) Take(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
	time.Sleep(s.delay) // the store's own slowness, which the latency measures
	return s.Store.Take(ctx, key, ps, cost, now)
}

// The latency a hook sees is that of the store call: at least the store's
// delay, and no more than the whole of Handle took.
func TestHookLatencyIsTheStoreCall(t *testing.T) {
	const delay = 2 * time.Millisecond
	l, err := core.NewLimiter(slowStore{memory.New(), delay}, []core.Policy{core.PerMinute(1)},
		core.WithClock(clocktest.New(time.Unix(1_800_000_000, 0))))
	require.NoError(t, err)
	var got []time.Duration
	f, err := FromOptions(l, []ratewindow.Option{
		ratewindow.WithOnDecision(func(ev ratewindow.Event) { got = append(got, ev.Latency) }),
	})
	require.NoError(t, err)
	for range 2 { // allowed, then denied
		start := time.Now()
		f.Handle(newRecorder("a"))
		took := time.Since(start)
		require.NotEmpty(t, got)
		assert.GreaterOrEqual(t, got[len(got)-1], delay)
		assert.LessOrEqual(t, got[len(got)-1], took)
	}
	assert.Len(t, got, 2)
}

// The legacy epoch form reads the limiter's clock: X-RateLimit-Reset is
// that clock's Unix time at the end of the window.
func TestLegacyEpochReadsTheLimitersClock(t *testing.T) {
	f, err := FromOptions(newLimiter(t, 1), []ratewindow.Option{
		ratewindow.WithHeaders(headers.Writer{Mode: headers.Legacy, LegacyEpoch: true}),
	})
	require.NoError(t, err)
	r := newRecorder("a")
	require.True(t, f.Handle(r))
	// 1_800_000_000 is a whole minute: the fixed window ends 60 s later.
	assert.Equal(t, "1800000060", r.header["X-RateLimit-Reset"])
}

// An unclassified request passed by WithPassUnclassified is reported to
// the hook, and passes without one.
func TestPassedUnclassifiedIsReported(t *testing.T) {
	var events []ratewindow.Event
	noKey := ratewindow.WithKeyFunc(func(keyfuncs.Request) (string, error) { return "", keyfuncs.ErrNoKey })
	f, err := FromOptions(newLimiter(t, 1), []ratewindow.Option{noKey, ratewindow.WithPassUnclassified(),
		ratewindow.WithOnDecision(func(ev ratewindow.Event) { events = append(events, ev) })})
	require.NoError(t, err)
	assert.True(t, f.Handle(newRecorder("a")))
	require.Len(t, events, 1)
	assert.Equal(t, ratewindow.UnclassifiedPassed, events[0].Outcome)

	f, err = FromOptions(newLimiter(t, 1), []ratewindow.Option{noKey, ratewindow.WithPassUnclassified()})
	require.NoError(t, err)
	assert.True(t, f.Handle(newRecorder("a")))
}

// The fields of one response share one block: four Sets, one allocation.
func TestHeaderSetterAllocatesOneBlock(t *testing.T) {
	h := make(http.Header, 8)
	var s HeaderSetter
	allocs := testing.AllocsPerRun(100, func() {
		s.Reset()
		s.Set(h, "Ratelimit", "1")
		s.Set(h, "Ratelimit-Policy", "2")
		s.Set(h, "Retry-After", "3")
		s.Set(h, "Cache-Control", "4")
	})
	assert.Equal(t, 1.0, allocs)
}

// None, the last mode, is a valid one: no rate-limit fields.
func TestHeadersModeNone(t *testing.T) {
	f, err := FromOptions(newLimiter(t, 1), []ratewindow.Option{ratewindow.WithHeaders(headers.Writer{Mode: headers.None})})
	require.NoError(t, err)
	r := newRecorder("a")
	require.True(t, f.Handle(r))
	assert.Empty(t, r.header)
}
