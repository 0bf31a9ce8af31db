package logging_test

import (
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core/resilient"
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
