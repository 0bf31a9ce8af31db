package middleware

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/keybound"
	"github.com/ratewindow/ratewindow/internal/options"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

// The flow asks a resolver once per request, whatever becomes of the
// request, and takes the key, the limiter and the mode from that one
// answer: the mode of a request whose key or store failed too.
func TestResolverAskedOncePerRequest(t *testing.T) {
	one, dead := newLimiter(t, 1), deadLimiter(t)
	var calls int
	resolve := func(r keyfuncs.Request, need options.Need) (options.Resolved, error) {
		calls++
		require.Equal(t, options.Need{Key: true, Mode: true}, need)
		client := r.Header("X-Client")
		switch client {
		case "none":
			return options.Resolved{}, keyfuncs.ErrSkip
		case "nokey", "nokey-observed":
			return options.Resolved{Limiter: one, ObserveOnly: client == "nokey-observed"}, keyfuncs.ErrNoKey
		case "dead", "dead-observed":
			return options.Resolved{Key: client, Limiter: dead, ObserveOnly: client == "dead-observed"}, nil
		case "refused":
			return options.Resolved{Key: client, LimiterErr: refusedErr{}}, nil
		}
		return options.Resolved{Key: client, Limiter: one}, nil
	}
	var events []ratewindow.Event
	f, err := FromOptions(nil, []ratewindow.Option{
		func(s *Settings) { s.Resolve = resolve },
		ratewindow.WithFailClosed(),
		ratewindow.WithOnDecision(func(ev ratewindow.Event) { events = append(events, ev) }),
	})
	require.NoError(t, err)
	for _, c := range []struct {
		client  string
		status  int // 0: passed
		outcome ratewindow.Outcome
		observe bool
	}{
		{"a", 0, ratewindow.Allowed, false},
		{"a", http.StatusTooManyRequests, ratewindow.Denied, false},
		{"none", 0, ratewindow.Skipped, false},
		{"nokey", http.StatusBadRequest, ratewindow.UnclassifiedRejected, false},
		{"nokey-observed", 0, ratewindow.UnclassifiedPassed, true},
		{"dead", http.StatusServiceUnavailable, ratewindow.StoreErrorRejected, false},
		{"dead-observed", 0, ratewindow.StoreErrorPassed, true},
		{"refused", http.StatusBadRequest, ratewindow.UnclassifiedRejected, false},
	} {
		calls, events = 0, nil
		r := newRecorder(c.client)
		f.Handle(r)
		assert.Equal(t, 1, calls, c.client)
		assert.Equal(t, c.status, r.status, c.client)
		require.Len(t, events, 1, c.client)
		assert.Equal(t, c.outcome, events[0].Outcome, c.client)
		assert.Equal(t, c.observe, events[0].ObserveOnly, c.client)
	}
}

// A resolver's key is bounded as a user's key func's is, and a key func
// set after it keys the request instead: the resolver is then not asked
// for a key.
func TestResolverKeyBoundedOrReplaced(t *testing.T) {
	var needs []options.Need
	resolve := func(r keyfuncs.Request, need options.Need) (options.Resolved, error) {
		needs = append(needs, need)
		return options.Resolved{Key: "h:" + r.Header("X-Client"), Limiter: newLimiter(t, 5)}, nil
	}
	var events []ratewindow.Event
	hook := ratewindow.WithOnDecision(func(ev ratewindow.Event) { events = append(events, ev) })
	set := func(s *Settings) { s.Resolve = resolve }
	f, err := FromOptions(nil, []ratewindow.Option{set, hook})
	require.NoError(t, err)
	require.True(t, f.Handle(newRecorder("a")))
	f, err = FromOptions(nil, []ratewindow.Option{set, hook, ratewindow.WithKeyFunc(func(keyfuncs.Request) (string, error) { return "mine", nil })})
	require.NoError(t, err)
	require.True(t, f.Handle(newRecorder("a")))
	require.Len(t, events, 2)
	assert.Equal(t, keybound.Hash("h:a"), events[0].Key, "a key that looks hashed is hashed")
	assert.Equal(t, "mine", events[1].Key)
	assert.Equal(t, []options.Need{{Key: true, Mode: true}, {Key: false, Mode: true}}, needs)
}

// A limiter func set beside a resolver chooses the limiter: the
// resolver's limiter, or its reason for having none, is not used.
func TestLimiterFuncReplacesResolversLimiter(t *testing.T) {
	mine := newLimiter(t, 5)
	var events []ratewindow.Event
	f, err := FromOptions(nil, []ratewindow.Option{
		func(s *Settings) {
			s.Resolve = func(r keyfuncs.Request, _ options.Need) (options.Resolved, error) {
				return options.Resolved{Key: "k", LimiterErr: refusedErr{}, ObserveOnly: true}, nil
			}
		},
		ratewindow.WithLimiterFunc(func(keyfuncs.Request, string) (*core.Limiter, error) { return mine, nil }),
		ratewindow.WithOnDecision(func(ev ratewindow.Event) { events = append(events, ev) }),
	})
	require.NoError(t, err)
	require.True(t, f.Handle(newRecorder("a")))
	require.Len(t, events, 1)
	assert.Equal(t, ratewindow.Allowed, events[0].Outcome)
	assert.Equal(t, int64(5), events[0].Decision.Limit)
	assert.True(t, events[0].ObserveOnly, "the resolver's mode")
}

// An observe-only func set after a resolver decides the mode: the
// resolver is not asked for one, and a mode it gives anyway is not used.
func TestObserveOnlyFuncReplacesResolversMode(t *testing.T) {
	var needs []options.Need
	var events []ratewindow.Event
	one := newLimiter(t, 1)
	f, err := FromOptions(nil, []ratewindow.Option{
		func(s *Settings) {
			s.Resolve = func(r keyfuncs.Request, need options.Need) (options.Resolved, error) {
				needs = append(needs, need)
				return options.Resolved{Key: "k", Limiter: one, ObserveOnly: true}, nil
			}
		},
		ratewindow.WithObserveOnlyFunc(func(keyfuncs.Request) bool { return false }),
		ratewindow.WithOnDecision(func(ev ratewindow.Event) { events = append(events, ev) }),
	})
	require.NoError(t, err)
	require.True(t, f.Handle(newRecorder("a")))
	r := newRecorder("a")
	require.False(t, f.Handle(r), "enforced, as the func says")
	assert.Equal(t, http.StatusTooManyRequests, r.status)
	assert.Equal(t, []options.Need{{Key: true}, {Key: true}}, needs)
	require.Len(t, events, 2)
	assert.False(t, events[1].ObserveOnly)
}

// Under WithObserveOnly(true) every request is observed: the resolver is
// not asked for a mode, and one it gives anyway does not enforce.
func TestObserveOnlyMakesResolversModeMoot(t *testing.T) {
	var needs []options.Need
	var events []ratewindow.Event
	one := newLimiter(t, 1)
	f, err := FromOptions(nil, []ratewindow.Option{
		ratewindow.WithObserveOnly(true),
		func(s *Settings) {
			s.Resolve = func(r keyfuncs.Request, need options.Need) (options.Resolved, error) {
				needs = append(needs, need)
				return options.Resolved{Key: "k", Limiter: one}, nil
			}
		},
		ratewindow.WithOnDecision(func(ev ratewindow.Event) { events = append(events, ev) }),
	})
	require.NoError(t, err)
	require.True(t, f.Handle(newRecorder("a")))
	require.True(t, f.Handle(newRecorder("a")), "over the limit, observed")
	assert.Equal(t, []options.Need{{Key: true}, {Key: true}}, needs)
	require.Len(t, events, 2)
	assert.Equal(t, ratewindow.WouldDeny, events[1].Outcome)
	assert.True(t, events[1].ObserveOnly)
}
