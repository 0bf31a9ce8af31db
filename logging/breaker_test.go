package logging_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/core/resilient"
	"github.com/ratewindow/ratewindow/internal/clocktest"
	"github.com/ratewindow/ratewindow/logging"
)

func TestBreakerStateChange(t *testing.T) {
	tests := []struct {
		from, to   resilient.State
		level, msg string
	}{
		{resilient.Closed, resilient.Open, "WARN", logging.MsgBreakerOpen},
		{resilient.Open, resilient.HalfOpen, "INFO", logging.MsgBreakerHalfOpen},
		{resilient.HalfOpen, resilient.Open, "WARN", logging.MsgBreakerOpen},
		{resilient.HalfOpen, resilient.Closed, "INFO", logging.MsgBreakerClosed},
		{resilient.Closed, resilient.State(7), "INFO", logging.MsgBreakerOther},
	}
	for _, tt := range tests {
		t.Run(tt.from.String()+" to "+tt.to.String(), func(t *testing.T) {
			logger, buf := jsonLogger(slog.LevelDebug)
			logging.BreakerStateChange(logger)(tt.from, tt.to)
			recs := records(t, buf)
			require.Len(t, recs, 1)
			assert.Equal(t, tt.level, recs[0]["level"])
			assert.Equal(t, tt.msg, recs[0]["msg"])
			assert.Equal(t, tt.from.String(), recs[0]["from"])
			assert.Equal(t, tt.to.String(), recs[0]["to"])
		})
	}
}

// zonedStore is a core.Store over core/memory whose keys live in failure
// domains named by their first byte (as a Redis Cluster's keys live on
// masters); the keys of domain "a" fail.
type zonedStore struct{ mem core.Store }

func (s zonedStore) Domain(key string) string { return key[:1] }

func (s zonedStore) Take(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
	if s.Domain(key) == "a" {
		return core.Result{}, errDown
	}
	return s.mem.Take(ctx, key, ps, cost, now)
}

func (s zonedStore) Peek(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
	return s.Take(ctx, key, ps, cost, now)
}

func (s zonedStore) Reset(ctx context.Context, key string, ps []core.Policy) error {
	return s.mem.Reset(ctx, key, ps)
}

// With a breaker per failure domain (a Cluster master), one domain's
// breaker opening is logged once, and the record does not claim that
// every store call fails fast: the other domain's keys still reach the
// store.
func TestBreakerStateChangeOneDomainOpen(t *testing.T) {
	logger, buf := jsonLogger(slog.LevelDebug)
	clock := clocktest.New(time.Unix(1_700_000_000, 0))
	store, err := resilient.New(zonedStore{mem: memory.New()},
		resilient.WithFailureThreshold(1),
		resilient.WithOpenInterval(time.Second),
		clocktest.Option[resilient.Option](clock),
		resilient.WithOnStateChange(logging.BreakerStateChange(logger)))
	require.NoError(t, err)
	ps := []core.Policy{core.PerMinute(10)}
	ctx := context.Background()

	_, err = store.Take(ctx, "a:1", ps, 1, clock.Now())
	require.Error(t, err)
	_, err = store.Take(ctx, "b:1", ps, 1, clock.Now())
	require.NoError(t, err, "the healthy domain's keys still reach the store")

	recs := records(t, buf)
	require.Len(t, recs, 1)
	assert.Equal(t, "WARN", recs[0]["level"])
	assert.Equal(t, logging.MsgBreakerOpen, recs[0]["msg"])
	assert.NotContains(t, recs[0]["msg"], "store calls fail fast", "only the failing master's keys do")
}

// A store that stays down opens the breaker again after each failed probe:
// two records per open interval (half-open, open), never more.
func TestBreakerStateChangeRecordsPerInterval(t *testing.T) {
	const intervals = 5
	logger, buf := jsonLogger(slog.LevelDebug)
	clock := clocktest.New(time.Unix(1_700_000_000, 0))
	store, err := resilient.New(downStore{},
		resilient.WithFailureThreshold(1),
		resilient.WithOpenInterval(time.Second),
		clocktest.Option[resilient.Option](clock),
		resilient.WithOnStateChange(logging.BreakerStateChange(logger)))
	require.NoError(t, err)
	ps := []core.Policy{core.PerMinute(10)}
	for range intervals * 10 {
		_, _ = store.Take(context.Background(), "k", ps, 1, clock.Now())
		clock.Advance(100 * time.Millisecond)
	}
	recs := records(t, buf)
	assert.Len(t, recs, 1+2*(intervals-1), "the first opening, then half-open and open again each interval")
}
