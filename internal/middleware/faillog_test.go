package middleware

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/clocktest"
	"github.com/ratewindow/ratewindow/internal/middleware/adaptertest"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

// capture is a slog.Handler that keeps the records it is given.
type capture struct {
	mu      sync.Mutex
	records []slog.Record
}

func (c *capture) Enabled(context.Context, slog.Level) bool { return true }
func (c *capture) WithAttrs([]slog.Attr) slog.Handler       { return c }
func (c *capture) WithGroup(string) slog.Handler            { return c }
func (c *capture) Handle(_ context.Context, r slog.Record) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.records = append(c.records, r)
	return nil
}

func (c *capture) all() []slog.Record {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]slog.Record(nil), c.records...)
}

// attrs returns the attributes of r as strings.
func attrs(r slog.Record) map[string]string {
	m := map[string]string{}
	r.Attrs(func(a slog.Attr) bool {
		m[a.Key] = a.Value.String()
		return true
	})
	return m
}

// captureDefault makes slog.Default() write to a capture until the test
// ends. Tests that call it must not be parallel.
func captureDefault(t *testing.T) *capture {
	c := &capture{}
	old := slog.Default()
	slog.SetDefault(slog.New(c))
	t.Cleanup(func() { slog.SetDefault(old) })
	return c
}

func deadLimiter(t *testing.T) *core.Limiter {
	t.Helper()
	l, err := core.NewLimiter(adaptertest.FailingStore{}, []core.Policy{core.PerMinute(10)})
	require.NoError(t, err)
	return l
}

// With no hook, a store that fails is not silent: fail-open writes one
// Warn record per second to slog.Default() during an outage, the next one
// counting those held back, and never the key or the path.
func TestFailOpenWithNoHookIsLogged(t *testing.T) {
	logs := captureDefault(t)
	f, err := FromOptions(deadLimiter(t), []ratewindow.Option{ratewindow.WithKeyFunc(keyfuncs.Header("X-Client", nil))})
	require.NoError(t, err)
	clock := clocktest.New(time.Unix(1_800_000_000, 0))
	f.fails.passed.now = clock.Now

	for range 1000 {
		r := newRecorder("secret-client")
		r.PathValue = "/x/secret-path"
		r.MethodValue = strings.Repeat("M", 100)
		require.True(t, f.Handle(r), "fail-open passes the request")
	}
	recs := logs.all()
	require.Len(t, recs, 1, "one record for a burst")
	assert.Equal(t, slog.LevelWarn, recs[0].Level)
	assert.Equal(t, msgFailedPassed, recs[0].Message)
	a := attrs(recs[0])
	assert.Equal(t, adaptertest.ErrStoreDown.Error(), a["err"])
	assert.Equal(t, "store_error_passed", a["outcome"])
	assert.Equal(t, "open", a["fail"])
	assert.Equal(t, "/x", a["route"])
	assert.Equal(t, strings.Repeat("M", 32)+"…", a["method"])
	assert.NotContains(t, a, "suppressed")
	for k, v := range a {
		assert.NotContains(t, v, "secret", "attribute %s shows the key or the path", k)
	}

	clock.Advance(time.Second)
	require.True(t, f.Handle(newRecorder("a")))
	recs = logs.all()
	require.Len(t, recs, 2)
	assert.Equal(t, "999", attrs(recs[1])["suppressed"], "the next record counts those held back")
}

// Fail-closed with no hook writes Error records, throttled the same way;
// an observe-only request that passes is counted with fail-open's.
func TestFailClosedWithNoHookIsLogged(t *testing.T) {
	logs := captureDefault(t)
	f, err := FromOptions(deadLimiter(t), []ratewindow.Option{ratewindow.WithFailClosed(),
		ratewindow.WithObserveOnlyFunc(func(r keyfuncs.Request) bool { return r.Header("X-Client") == "canary" })})
	require.NoError(t, err)
	for range 100 {
		r := newRecorder("a")
		require.False(t, f.Handle(r))
		require.Equal(t, http.StatusServiceUnavailable, r.status)
	}
	require.True(t, f.Handle(newRecorder("canary")))
	recs := logs.all()
	require.Len(t, recs, 2)
	assert.Equal(t, slog.LevelError, recs[0].Level)
	assert.Equal(t, msgFailedRejected, recs[0].Message)
	assert.Equal(t, "closed", attrs(recs[0])["fail"])
	assert.Equal(t, slog.LevelWarn, recs[1].Level)
	assert.Equal(t, "true", attrs(recs[1])["observe_only"])
}

// A hook replaces the default log: the user who set one gets exactly what
// the hook does, and a no-op hook silences the failures.
func TestHookReplacesTheDefaultLog(t *testing.T) {
	logs := captureDefault(t)
	var seen int
	for _, opts := range [][]ratewindow.Option{
		{ratewindow.WithOnDecision(func(ratewindow.Event) { seen++ })},
		{ratewindow.WithOnDecision(func(ratewindow.Event) { seen++ }), ratewindow.WithFailClosed()},
	} {
		f, err := FromOptions(deadLimiter(t), opts)
		require.NoError(t, err)
		assert.Nil(t, f.fails)
		for range 10 {
			f.Handle(newRecorder("a"))
		}
	}
	assert.Equal(t, 20, seen)
	assert.Empty(t, logs.all())
}

// A healthy store writes nothing to the default log.
func TestHealthyStoreWithNoHookLogsNothing(t *testing.T) {
	logs := captureDefault(t)
	f, err := FromOptions(newLimiter(t, 1), nil)
	require.NoError(t, err)
	assert.True(t, f.Handle(newRecorder("a")))
	assert.False(t, f.Handle(newRecorder("a")))
	assert.Empty(t, logs.all())
}

// A Limit form given a limiter it refuses answers every request 503, and
// has no hook: the requests are logged as a failing limiter's are, once a
// second, or the mistake would go unnoticed.
func TestUnusableFlowIsLogged(t *testing.T) {
	logs := captureDefault(t)
	f := Default(nil)
	clock := clocktest.New(time.Unix(1_800_000_000, 0))
	f.fails.rejected.now = clock.Now
	for range 50 {
		r := newRecorder("a")
		require.False(t, f.Handle(r))
		require.Equal(t, http.StatusServiceUnavailable, r.status)
	}
	clock.Advance(time.Second)
	require.False(t, f.Handle(newRecorder("a")))
	recs := logs.all()
	require.Len(t, recs, 2, "one record a second")
	assert.Equal(t, slog.LevelError, recs[0].Level)
	assert.Equal(t, msgFailedRejected, recs[0].Message)
	assert.Contains(t, attrs(recs[0])["err"], ratewindow.ErrNoLimiter.Error())
	assert.Equal(t, ratewindow.UnclassifiedRejected.String(), attrs(recs[0])["outcome"])
	assert.Equal(t, "49", attrs(recs[1])["suppressed"])
}

// refusedErr stands for an adapter's refusal of the limiter chosen for a
// request (as fibermw's in a Prefork child).
type refusedErr struct{}

func (refusedErr) Error() string        { return "limiter refused here" }
func (refusedErr) Is(target error) bool { return target == ErrRefused }

// A limiter func's choice that the adapter refuses is a mistake in the
// set-up, logged with no hook; a request with no key is the client's own
// case, and is not.
func TestRefusedChoiceIsLogged(t *testing.T) {
	logs := captureDefault(t)
	refuse := func(keyfuncs.Request, string) (*core.Limiter, error) { return nil, refusedErr{} }
	f, err := FromOptions(nil, []ratewindow.Option{ratewindow.WithLimiterFunc(refuse)})
	require.NoError(t, err)
	r := newRecorder("a")
	require.False(t, f.Handle(r))
	require.Equal(t, http.StatusBadRequest, r.status)
	recs := logs.all()
	require.Len(t, recs, 1)
	assert.Equal(t, slog.LevelError, recs[0].Level)
	assert.Contains(t, attrs(recs[0])["err"], "limiter refused here")

	g, err := FromOptions(newLimiter(t, 1), []ratewindow.Option{ratewindow.WithKeyFunc(keyfuncs.Header("X-Client", nil))})
	require.NoError(t, err)
	require.False(t, g.Handle(newRecorder("")))
	assert.Len(t, logs.all(), 1, "a request with no key is not logged")
}

// A key func misconfigured (an invalid header name) fails every request
// with an error wrapping core.ErrInvalidConfig: a mistake in the set-up,
// logged with no hook like a failing limiter, once a second.
func TestMisconfiguredKeyFuncIsLogged(t *testing.T) {
	logs := captureDefault(t)
	f, err := FromOptions(newLimiter(t, 10), []ratewindow.Option{ratewindow.WithKeyFunc(keyfuncs.Header("X Client", nil))})
	require.NoError(t, err)
	for range 20 {
		r := newRecorder("a")
		require.False(t, f.Handle(r))
		require.Equal(t, http.StatusBadRequest, r.status)
	}
	recs := logs.all()
	require.Len(t, recs, 1)
	assert.Equal(t, slog.LevelError, recs[0].Level)
	assert.Contains(t, attrs(recs[0])["err"], "not a valid header name")
}
