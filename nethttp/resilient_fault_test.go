package nethttp_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/resilient"
	"github.com/ratewindow/ratewindow/internal/clocktest"
	"github.com/ratewindow/ratewindow/nethttp"
)

// deadStore fails every call, like an unreachable Redis, and counts them.
type deadStore struct{ calls int }

var errDead = errors.New("dial tcp 127.0.0.1:6379: connection refused")

func (s *deadStore) Take(context.Context, string, []core.Policy, int64, time.Time) (core.Result, error) {
	s.calls++
	return core.Result{}, errDead
}

func (s *deadStore) Peek(context.Context, string, []core.Policy, int64, time.Time) (core.Result, error) {
	s.calls++
	return core.Result{}, errDead
}

func (s *deadStore) Reset(context.Context, string, []core.Policy) error {
	s.calls++
	return errDead
}

// TestResilientStoreThroughMiddleware: the resilient decorator needs
// nothing from the middleware. With a dead store and fail-closed, the
// first requests carry the store's error and the rest ErrCircuitOpen, all
// answered 503 without calling the store; with the fallback, the same
// dead store gives ordinary 200s and 429s with rate-limit headers.
func TestResilientStoreThroughMiddleware(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	serve := func(h http.Handler) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = "192.0.2.7:1234"
		h.ServeHTTP(w, r)
		return w
	}

	t.Run("fail closed", func(t *testing.T) {
		dead := &deadStore{}
		store, err := resilient.New(dead, resilient.WithFailureThreshold(3), resilient.WithOpenInterval(time.Hour))
		require.NoError(t, err)
		l, err := core.NewLimiter(store, []core.Policy{core.PerMinute(10)})
		require.NoError(t, err)
		var errs []error
		mw, err := nethttp.New(l, ratewindow.WithFailClosed(),
			ratewindow.WithOnDecision(func(ev ratewindow.Event) { errs = append(errs, ev.Err) }))
		require.NoError(t, err)
		h := mw(ok)
		for range 10 {
			assert.Equal(t, http.StatusServiceUnavailable, serve(h).Code)
		}
		assert.Equal(t, 3, dead.calls)
		require.Len(t, errs, 10)
		for i, err := range errs {
			assert.Equal(t, i < 3, errors.Is(err, errDead), "event %d: %v", i, err)
			assert.Equal(t, i >= 3, errors.Is(err, resilient.ErrCircuitOpen), "event %d: %v", i, err)
		}
	})

	t.Run("fallback", func(t *testing.T) {
		store, err := resilient.New(&deadStore{}, resilient.WithFallback(5))
		require.NoError(t, err)
		l, err := core.NewLimiter(store, []core.Policy{core.PerMinute(10)}, core.WithClock(clocktest.New(time.Now().Truncate(time.Hour))))
		require.NoError(t, err)
		mw, err := nethttp.New(l, ratewindow.WithFailClosed())
		require.NoError(t, err)
		h := mw(ok)
		codes := []int{}
		for range 4 {
			w := serve(h)
			codes = append(codes, w.Code)
			assert.NotEmpty(t, w.Header().Get("RateLimit"), "headers are written for fallback decisions")
		}
		assert.Equal(t, []int{200, 200, 429, 429}, codes, "10 per minute over 5 replicas: 2 here")
	})
}
