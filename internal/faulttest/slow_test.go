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
// CLIENT PAUSE holds every client's commands) for three seconds:
// requests are answered within the store timeout, failing open or closed
// as configured, and are limited again, exactly, when the stall ends.
func TestSlowRedis(t *testing.T) {
	t.Parallel()
	const stallFor = 3 * time.Second
	stalls := []struct {
		name  string
		stall func(ctx context.Context, p *proc) error
	}{
		{"DEBUG SLEEP", func(ctx context.Context, p *proc) error {
			return p.client(t).Do(ctx, "DEBUG", "SLEEP", stallFor.Seconds()).Err()
		}},
		{"CLIENT PAUSE", func(ctx context.Context, p *proc) error {
			if err := p.client(t).Do(ctx, "CLIENT", "PAUSE", stallFor.Milliseconds(), "ALL").Err(); err != nil {
				return err
			}
			time.Sleep(stallFor)
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
			// Counts after the stall go through an app that waits long for
			// the server: on a busy machine a call over storeTimeout would
			// pass open and look like a miscount.
			exact := newApp(t, l, ratewindow.WithTimeout(longTimeout), ratewindow.WithFailClosed())
			s, _ := open.get(t, "warm")
			require.Equal(t, http.StatusOK, s)
			seen.take()

			stalled := make(chan error, 1)
			sent := time.Now()
			go func() { stalled <- tt.stall(context.Background(), srv) }()
			// Wait until the server really stalls: a PING runs out of time,
			// a time no busy machine keeps a PING waiting.
			probe := srv.client(t)
			require.Eventually(t, func() bool {
				ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
				defer cancel()
				return probe.Ping(ctx).Err() != nil
			}, stallFor/2, 10*time.Millisecond)

			// The stall lasts until stallFor after it was sent at the
			// earliest: a request answered before then met the stall from
			// end to end. Each must be answered within answerBound, stalls
			// of this process aside; one answered after the stall's
			// earliest end (a long stall of this process) says nothing of
			// its outcome.
			watch := watchStalls()
			defer watch.stop()
			end := sent.Add(stallFor)
			checked := map[string]int{}
			during := func(a *app, name string, want, i int) {
				from := time.Now()
				s, d := a.get(t, "slow")
				assert.Less(t, d, answerBound+watch.stalled(from, from.Add(d)), "%s request %d", name, i)
				if from.Add(d).Before(end) {
					assert.Equal(t, want, s, "%s request %d", name, i)
					checked[name]++
				}
			}
			for i := 0; i < 5 && time.Now().Before(end.Add(-answerBound)); i++ {
				during(open, "fail-open", http.StatusOK, i)
				during(closed, "fail-closed", http.StatusServiceUnavailable, i)
			}
			t.Logf("requests answered during the stall: %v", checked)
			require.Positive(t, checked["fail-open"], "a fail-open request during the stall")
			require.Positive(t, checked["fail-closed"], "a fail-closed request during the stall")
			for _, ev := range seen.take() {
				assert.Equal(t, ratewindow.StoreErrorPassed, ev.Outcome)
				assert.True(t, isTimeout(ev.Err), "the hook sees the timeout: %v", ev.Err)
			}

			require.NoError(t, <-stalled)
			// The stall is over (for CLIENT PAUSE, a moment after): the
			// server answers again and limits exactly.
			assert.Equal(t, map[int]int{http.StatusOK: limit, http.StatusTooManyRequests: 3},
				exact.count(t, "after", limit+3), "limited again once the stall is over")
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
