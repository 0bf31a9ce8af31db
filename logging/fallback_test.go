package logging_test

import (
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/internal/clocktest"
	"github.com/ratewindow/ratewindow/logging"
)

// tally adds up, per outcome and fallback or store, the requests the
// records account for: each record is one, plus its "suppressed".
func tally(recs []map[string]any) map[string]float64 {
	out := map[string]float64{}
	for _, r := range recs {
		n := 1.0
		if s, ok := r["suppressed"].(float64); ok {
			n += s
		}
		out[fmt.Sprintf("%v fallback=%v", r["outcome"], r["fallback"] == true)] += n
	}
	return out
}

// The fallback's allowed requests and its denials, and its would-denies
// and the store's, are throttled apart: a flood of one, in the same
// second, neither hides the only record of another nor counts it in its
// own "suppressed". Once the interval ends, the records and their counts
// add up to the requests of each kind.
func TestHookFallbackOutcomesThrottledApart(t *testing.T) {
	tests := []struct {
		name string
		opts []logging.Option
		sent map[string]float64
		send func(hook func(ratewindow.Event))
	}{{
		name: "allowed and denied by the fallback",
		sent: map[string]float64{"allowed fallback=true": 6, "denied fallback=true": 1},
		send: func(hook func(ratewindow.Event)) {
			for range 6 {
				hook(fallbackEvent(ratewindow.Allowed, 5, 0))
			}
			hook(fallbackEvent(ratewindow.Denied, 0, time.Second))
		},
	}, {
		name: "denied by the fallback and by the store, WithDenials",
		opts: []logging.Option{logging.WithDenials()},
		sent: map[string]float64{"denied fallback=true": 5, "denied fallback=false": 1},
		send: func(hook func(ratewindow.Event)) {
			for range 5 {
				hook(fallbackEvent(ratewindow.Denied, 0, time.Second))
			}
			hook(decisionEvent(ratewindow.Denied, 0, time.Second))
		},
	}, {
		name: "would deny by the fallback and by the store",
		sent: map[string]float64{"would_deny fallback=true": 5, "would_deny fallback=false": 1},
		send: func(hook func(ratewindow.Event)) {
			for range 5 {
				hook(fallbackEvent(ratewindow.WouldDeny, 0, time.Second))
			}
			hook(decisionEvent(ratewindow.WouldDeny, 0, time.Second))
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := newTimerClock()
			logger, buf := jsonLogger(slog.LevelDebug)
			hook := logging.Hook(logger, append(tt.opts, clocktest.Option[logging.Option](clock))...)
			tt.send(hook)
			during := tally(records(t, buf))
			for kind := range tt.sent {
				assert.Positive(t, during[kind], "%s: no record within the second", kind)
			}
			clock.Advance(time.Second)
			assert.Equal(t, tt.sent, tally(records(t, buf)))
		})
	}
}
