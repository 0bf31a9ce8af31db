package faulttest

import (
	"context"
	"errors"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/redisstore"
)

// TestSlowRedis stalls a live Redis (DEBUG SLEEP blocks the whole server;
// CLIENT PAUSE holds every client's commands) for longer than a second:
// requests are answered within the store timeout, failing open or closed
// as configured, and are limited again when the stall ends.
func TestSlowRedis(t *testing.T) {
	t.Parallel()
	stalls := []struct {
		name  string
		stall func(ctx context.Context, p *proc) error
	}{
		{"DEBUG SLEEP", func(ctx context.Context, p *proc) error {
			return p.client(t).Do(ctx, "DEBUG", "SLEEP", "2").Err()
		}},
		{"CLIENT PAUSE", func(ctx context.Context, p *proc) error {
			if err := p.client(t).Do(ctx, "CLIENT", "PAUSE", "1500", "ALL").Err(); err != nil {
				return err
			}
			time.Sleep(1500 * time.Millisecond)
			return nil
		}},
	}
	for _, tt := range stalls {
		t.Run(tt.name, func(t *testing.T) {
			srv := startRedis(t)
			store, err := redisstore.New(srv.client(t), redisstore.WithClientTime()) // on frozenClock
			require.NoError(t, err)
			const limit = 10
			l, err := core.NewLimiter(store, []core.Policy{core.Per(limit, time.Hour).Using(core.FixedWindow)},
				core.WithClock(frozenClock()))
			require.NoError(t, err)
			var seen events
			open := newApp(t, l, ratewindow.WithTimeout(storeTimeout), ratewindow.WithOnDecision(seen.record))
			closed := newApp(t, l, ratewindow.WithTimeout(storeTimeout), ratewindow.WithFailClosed())
			s, _ := open.get(t, "warm")
			require.Equal(t, http.StatusOK, s)
			seen.take()

			stalled := make(chan error, 1)
			go func() { stalled <- tt.stall(context.Background(), srv) }()
			// Wait until the server really stalls: a PING runs out of time.
			probe := srv.client(t)
			require.Eventually(t, func() bool {
				ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
				defer cancel()
				return probe.Ping(ctx).Err() != nil
			}, time.Second, 10*time.Millisecond)

			for i := range 5 {
				s, d := open.get(t, "slow")
				assert.Equal(t, http.StatusOK, s, "fail-open request %d", i)
				assert.Less(t, d, answerBound, "fail-open request %d", i)
				s, d = closed.get(t, "slow")
				assert.Equal(t, http.StatusServiceUnavailable, s, "fail-closed request %d", i)
				assert.Less(t, d, answerBound, "fail-closed request %d", i)
			}
			for _, ev := range seen.take() {
				assert.Equal(t, ratewindow.StoreErrorPassed, ev.Outcome)
				assert.True(t, isTimeout(ev.Err), "the hook sees the timeout: %v", ev.Err)
			}

			require.NoError(t, <-stalled)
			seen.take()
			// A request in the instant the server resumes can still run out
			// of time and fail open (the hook sees it); Redis may or may not
			// run its queued script afterwards, so such a pass is charged or
			// not. Either way: limit charged admissions, then denials.
			got := open.count(t, "after", limit+3)
			passed := 0
			for _, ev := range seen.take() {
				if ev.Outcome == ratewindow.StoreErrorPassed {
					passed++
				}
			}
			assert.LessOrEqual(t, passed, 1, "the server answers again once the stall is over")
			assert.Equal(t, limit+3, got[http.StatusOK]+got[http.StatusTooManyRequests], "only 200s and 429s: %v", got)
			assert.GreaterOrEqual(t, got[http.StatusOK], limit, "limited again once the stall is over: %v", got)
			assert.LessOrEqual(t, got[http.StatusOK], limit+passed, "limited again once the stall is over (%d passed on a store error): %v", passed, got)
		})
	}
}

// isTimeout reports whether err says time ran out: the context's deadline,
// or a network timeout (go-redis with ContextTimeoutEnabled puts the
// deadline on the connection and reports "i/o timeout").
func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}
