package middleware

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/internal/clocktest"
	"github.com/ratewindow/ratewindow/internal/keybound"
	"github.com/ratewindow/ratewindow/internal/keytest"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

// recorder is an Exchange over a keytest.Request that records the response.
type recorder struct {
	keytest.Request
	header map[string]string
	status int
	body   string
}

func newRecorder(client string) *recorder {
	return &recorder{
		Request: keytest.Request{
			MethodValue: http.MethodGet, PathValue: "/x", RouteValue: "/x", RemoteAddrValue: "192.0.2.1:1234",
			Headers: map[string][]string{"X-Client": {client}},
		},
		header: map[string]string{},
	}
}

func (r *recorder) SetHeader(name, value string) { r.header[name] = value }
func (r *recorder) Send(status int, body []byte) { r.status, r.body = status, string(body) }

func newLimiter(t *testing.T, limit int64) *core.Limiter {
	t.Helper()
	l, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(limit).Using(core.FixedWindow)},
		core.WithClock(clocktest.New(time.Unix(1_800_000_000, 0))))
	require.NoError(t, err)
	return l
}

func TestFromOptions(t *testing.T) {
	a := newLimiter(t, 1)
	f, err := FromOptions(a, []ratewindow.Option{nil, ratewindow.WithTimeout(time.Second)})
	require.NoError(t, err)
	assert.Same(t, a, f.limiter)
	assert.Equal(t, time.Second, f.timeout, "nil options are ignored")

	_, err = FromOptions(nil, []ratewindow.Option{ratewindow.WithLimiterFunc(func(keyfuncs.Request, string) (*core.Limiter, error) { return nil, nil })})
	require.NoError(t, err, "a limiter func alone is enough")
}

func TestLimiterFuncOutcomes(t *testing.T) {
	var events []ratewindow.Event
	hook := ratewindow.WithOnDecision(func(ev ratewindow.Event) { events = append(events, ev) })
	choose := func(r keyfuncs.Request, key string) (*core.Limiter, error) {
		switch key {
		case "hdr:x-client:skip":
			return nil, keyfuncs.ErrSkip
		case "hdr:x-client:broken":
			return nil, errors.New("plan lookup failed")
		}
		return nil, nil
	}
	f, err := FromOptions(nil, []ratewindow.Option{hook, ratewindow.WithFailClosed(),
		ratewindow.WithKeyFunc(keyfuncs.Header("X-Client", nil)), ratewindow.WithLimiterFunc(choose)})
	require.NoError(t, err)

	skip := newRecorder("skip")
	assert.True(t, f.Handle(skip))
	broken := newRecorder("broken")
	assert.False(t, f.Handle(broken))
	assert.Equal(t, http.StatusServiceUnavailable, broken.status)
	nolimiter := newRecorder("nobody")
	assert.False(t, f.Handle(nolimiter))

	require.Len(t, events, 3)
	assert.Equal(t, ratewindow.Skipped, events[0].Outcome)
	assert.Equal(t, "hdr:x-client:skip", events[0].Key)
	assert.Equal(t, ratewindow.StoreErrorRejected, events[1].Outcome)
	assert.EqualError(t, events[1].Err, "plan lookup failed")
	assert.ErrorIs(t, events[2].Err, ratewindow.ErrNoLimiter)
	assert.Equal(t, "hdr:x-client:nobody", events[2].Key)
}

func TestObservePredicateAlsoCoversFailures(t *testing.T) {
	var events []ratewindow.Event
	f, err := FromOptions(nil, []ratewindow.Option{
		ratewindow.WithLimiterFunc(func(keyfuncs.Request, string) (*core.Limiter, error) { return nil, context.Canceled }),
		ratewindow.WithFailClosed(),
		ratewindow.WithObserveOnlyFunc(func(r keyfuncs.Request) bool { return r.Header("X-Client") == "canary" }),
		ratewindow.WithOnDecision(func(ev ratewindow.Event) { events = append(events, ev) }),
	})
	require.NoError(t, err)
	assert.True(t, f.Handle(newRecorder("canary")))
	assert.False(t, f.Handle(newRecorder("other")))
	require.Len(t, events, 2)
	assert.Equal(t, ratewindow.StoreErrorPassed, events[0].Outcome)
	assert.True(t, events[0].ObserveOnly)
	assert.True(t, events[0].FailedOpen)
	assert.Equal(t, ratewindow.StoreErrorRejected, events[1].Outcome)
	assert.False(t, events[1].ObserveOnly)
}

func TestDenyWritesRetryAfterBeforeTheHandler(t *testing.T) {
	var seen map[string]string
	f, err := FromOptions(newLimiter(t, 1), []ratewindow.Option{
		ratewindow.WithDenyHandler(func(w ratewindow.Response, r keyfuncs.Request, ev ratewindow.Event) {
			seen = map[string]string{}
			// The recorder is the request and, under the guard of a
			// handler of the user's own, the response.
			for k, v := range r.(*recorder).header {
				seen[k] = v
			}
			assert.Equal(t, ratewindow.Denied, ev.Outcome)
			w.Send(http.StatusTeapot, nil)
		}),
	})
	require.NoError(t, err)
	assert.True(t, f.Handle(newRecorder("a")))
	r := newRecorder("a")
	assert.False(t, f.Handle(r))
	assert.Equal(t, http.StatusTeapot, r.status)
	assert.Equal(t, "60", seen["Retry-After"])
	assert.Contains(t, seen, "RateLimit")
}

func TestCanonicalHeaderKey(t *testing.T) {
	for _, name := range []string{"RateLimit", "RateLimit-Policy", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset",
		"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After", "Content-Type", "x-custom-field"} {
		assert.Equal(t, http.CanonicalHeaderKey(name), CanonicalHeaderKey(name), name)
	}
}

func TestHeaderSetter(t *testing.T) {
	h := http.Header{}
	var s HeaderSetter
	s.Set(h, "RateLimit", "a")
	s.Set(h, "RateLimit-Policy", "b")
	s.Set(h, "RateLimit", "c") // replaces
	h.Add("RateLimit-Policy", "d")
	assert.Equal(t, []string{"c"}, h.Values("RateLimit"))
	assert.Equal(t, []string{"b", "d"}, h.Values("RateLimit-Policy"))
	s.Reset()
	h2 := http.Header{}
	s.Set(h2, "Retry-After", "1")
	assert.Equal(t, "c", h.Get("RateLimit"), "a new response never writes into the old block")
	assert.Equal(t, "1", h2.Get("Retry-After"))
}

func TestOnDecisionTakesSeveralHooks(t *testing.T) {
	var calls []string
	record := func(name string) func(ratewindow.Event) {
		return func(ev ratewindow.Event) { calls = append(calls, name+":"+ev.Outcome.String()) }
	}
	hooks := []func(ratewindow.Event){record("a"), record("b"), record("c")}
	f, err := FromOptions(newLimiter(t, 1), []ratewindow.Option{ratewindow.WithOnDecision(hooks...)})
	require.NoError(t, err)
	hooks[0] = record("replaced") // the option keeps its own copy
	f.Handle(newRecorder("x"))
	f.Handle(newRecorder("x"))
	assert.Equal(t, []string{"a:allowed", "b:allowed", "c:allowed", "a:denied", "b:denied", "c:denied"}, calls)

	_, err = FromOptions(newLimiter(t, 1), []ratewindow.Option{ratewindow.WithOnDecision(record("a"), nil)})
	assert.ErrorIs(t, err, core.ErrInvalidConfig, "a nil hook among several is a mistake")
	f, err = FromOptions(newLimiter(t, 1), []ratewindow.Option{ratewindow.WithOnDecision()})
	require.NoError(t, err)
	assert.Nil(t, f.hook, "no hook: no Event is built")
}

func TestUserKeysAreBounded(t *testing.T) {
	var got []string
	long := string(make([]byte, 8<<10))
	f, err := FromOptions(newLimiter(t, 10), []ratewindow.Option{
		ratewindow.WithKeyFunc(func(keyfuncs.Request) (string, error) { return long, nil }),
		ratewindow.WithOnDecision(func(ev ratewindow.Event) { got = append(got, ev.Key) }),
	})
	require.NoError(t, err)
	require.True(t, f.Handle(newRecorder("a")))
	require.Len(t, got, 1)
	assert.LessOrEqual(t, len(got[0]), keybound.MaxLen, "an 8 KB user key reached the store")
}

// A key func of the user's own that returns "" (say, the value of a header
// the client left out) has found no key: the request is unclassified, never
// a store error that fail-open waves through unlimited.
func TestEmptyUserKeyIsUnclassified(t *testing.T) {
	var events []ratewindow.Event
	f, err := FromOptions(newLimiter(t, 1), []ratewindow.Option{
		ratewindow.WithKeyFunc(func(r keyfuncs.Request) (string, error) { return r.Header("X-User"), nil }),
		ratewindow.WithOnDecision(func(ev ratewindow.Event) { events = append(events, ev) }),
	})
	require.NoError(t, err)
	for i := 0; i < 3; i++ {
		r := newRecorder("a")
		assert.False(t, f.Handle(r), "request %d without a key passed", i)
		assert.Equal(t, http.StatusBadRequest, r.status)
		assert.Contains(t, r.body, "no_rate_limit_key")
	}
	require.Len(t, events, 3)
	for _, ev := range events {
		assert.Equal(t, ratewindow.UnclassifiedRejected, ev.Outcome)
		assert.ErrorIs(t, ev.Err, keyfuncs.ErrNoKey)
		assert.False(t, ev.FailedOpen)
	}

	// The limiter func is not asked about the empty key either.
	asked := false
	f, err = FromOptions(newLimiter(t, 1), []ratewindow.Option{
		ratewindow.WithKeyFunc(func(keyfuncs.Request) (string, error) { return "", nil }),
		ratewindow.WithLimiterFunc(func(keyfuncs.Request, string) (*core.Limiter, error) { asked = true; return nil, nil }),
	})
	require.NoError(t, err)
	assert.False(t, f.Handle(newRecorder("a")))
	assert.False(t, asked)
}

// A built-in strategy given to WithKeyFunc is bounded like the user's own:
// its hashed keys are hashed once more. Event.Key is the key the limiter
// holds, the one Reset takes.
func TestEventKeyIsTheStoredKey(t *testing.T) {
	l := newLimiter(t, 1)
	var keys []string
	f, err := FromOptions(l, []ratewindow.Option{
		ratewindow.WithKeyFunc(keyfuncs.Hashed(keyfuncs.Header("X-Client", nil))),
		ratewindow.WithOnDecision(func(ev ratewindow.Event) { keys = append(keys, ev.Key) }),
	})
	require.NoError(t, err)
	assert.True(t, f.Handle(newRecorder("a")))
	assert.False(t, f.Handle(newRecorder("a")))
	own, err := keyfuncs.Hashed(keyfuncs.Header("X-Client", nil))(newRecorder("a"))
	require.NoError(t, err)
	require.Len(t, keys, 2)
	assert.Equal(t, keybound.Hash(own), keys[0])

	require.NoError(t, l.Reset(context.Background(), keys[1]))
	assert.True(t, f.Handle(newRecorder("a")), "Reset with Event.Key gives the quota back")
}
