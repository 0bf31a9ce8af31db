package middleware

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/resilient"
	"github.com/ratewindow/ratewindow/internal/clocktest"
	"github.com/ratewindow/ratewindow/internal/middleware/adaptertest"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

// fallbackLimiter is a limiter whose store is down behind core/resilient's
// local fallback: every decision is the fallback's, none is an error.
func fallbackLimiter(t *testing.T, limit int64) *core.Limiter {
	t.Helper()
	store, err := resilient.New(adaptertest.FailingStore{}, resilient.WithFallback(1))
	require.NoError(t, err)
	l, err := core.NewLimiter(store, []core.Policy{core.PerMinute(limit).Using(core.FixedWindow).Named("minute")})
	require.NoError(t, err)
	return l
}

// With no hook, a store that fails behind the local fallback is not
// silent either: its failed calls are decisions, not errors, and the
// default log writes one Warn record per second for each of their
// outcomes, worded as package logging's, the next one counting those of
// its outcome held back, and never the key or the path.
func TestFallbackWithNoHookIsLogged(t *testing.T) {
	logs := captureDefault(t)
	f, err := FromOptions(fallbackLimiter(t, 10), []ratewindow.Option{ratewindow.WithKeyFunc(keyfuncs.Header("X-Client", nil))})
	require.NoError(t, err)
	clock := clocktest.New(time.Unix(1_800_000_000, 0))
	for i := range f.fails.fallback {
		f.fails.fallback[i].now = clock.Now
	}

	allowed := 0
	for range 1000 {
		r := newRecorder("secret-client")
		r.PathValue = "/x/secret-path"
		r.MethodValue = strings.Repeat("M", 100)
		if f.Handle(r) {
			allowed++
		}
	}
	require.Equal(t, 10, allowed, "the fallback enforces the limit")
	recs := logs.all()
	require.Len(t, recs, 2, "one record for a burst, per outcome")
	assert.Equal(t, "denied", attrs(recs[1])["outcome"], "denials of the fallback are its decisions too")
	assert.NotContains(t, attrs(recs[1]), "suppressed")
	assert.Equal(t, slog.LevelWarn, recs[0].Level)
	assert.Equal(t, "ratewindow: store failed, request decided by the local fallback", recs[0].Message)
	a := attrs(recs[0])
	assert.Equal(t, "allowed", a["outcome"])
	assert.Equal(t, "true", a["fallback"])
	assert.Equal(t, "/x", a["route"])
	assert.Equal(t, strings.Repeat("M", 32)+"…", a["method"])
	assert.Equal(t, "minute", a["policy"])
	assert.Equal(t, "10", a["limit"])
	assert.Equal(t, "9", a["remaining"])
	assert.Equal(t, "1", a["cost"])
	assert.NotContains(t, a, "suppressed")
	for k, v := range a {
		assert.NotContains(t, v, "secret", "attribute %s shows the key or the path", k)
	}

	// The next record of each outcome counts those of its own held back:
	// 9 allowed, 989 denied. A flood of denials never hides the allowed
	// requests, nor the other way round.
	clock.Advance(time.Second)
	require.False(t, f.Handle(newRecorder("secret-client")))
	require.True(t, f.Handle(newRecorder("other-client")))
	recs = logs.all()
	require.Len(t, recs, 4)
	assert.Equal(t, "denied", attrs(recs[2])["outcome"])
	assert.Equal(t, "989", attrs(recs[2])["suppressed"], "the next record counts those held back")
	assert.Equal(t, "allowed", attrs(recs[3])["outcome"])
	assert.Equal(t, "9", attrs(recs[3])["suppressed"])
}

// An observe-only request the fallback would deny is logged the same way;
// a hook replaces the default log here too.
func TestFallbackWouldDenyWithNoHookIsLogged(t *testing.T) {
	logs := captureDefault(t)
	f, err := FromOptions(fallbackLimiter(t, 1), []ratewindow.Option{ratewindow.WithObserveOnly(true)})
	require.NoError(t, err)
	clock := clocktest.New(time.Unix(1_800_000_000, 0))
	for i := range f.fails.fallback {
		f.fails.fallback[i].now = clock.Now
	}
	require.True(t, f.Handle(newRecorder("a")))
	clock.Advance(time.Second)
	require.True(t, f.Handle(newRecorder("a")))
	recs := logs.all()
	require.Len(t, recs, 2)
	assert.Equal(t, "allowed", attrs(recs[0])["outcome"])
	assert.Equal(t, "would_deny", attrs(recs[1])["outcome"])
	assert.Equal(t, "true", attrs(recs[1])["fallback"])

	var seen int
	g, err := FromOptions(fallbackLimiter(t, 1), []ratewindow.Option{ratewindow.WithOnDecision(func(ratewindow.Event) { seen++ })})
	require.NoError(t, err)
	g.Handle(newRecorder("a"))
	g.Handle(newRecorder("a"))
	assert.Equal(t, 2, seen)
	assert.Len(t, logs.all(), 2, "a hook replaces the default log")
}
