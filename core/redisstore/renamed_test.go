package redisstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/redisstore"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// A Redis that renamed or disabled a command (rename-command, as some
// managed services do) the store needs is a configuration mistake: Check
// and every call say so, and the error does not repeat the arguments
// Redis echoes (the key, which holds the client's). One it can do without
// (INFO, SCRIPT: EVAL caches the script) fails nothing.
func TestRenamedCommands(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ps := policies(t, core.PerMinute(10).Named("fw").Using(core.FixedWindow),
		core.PerMinute(10).Named("log").Using(core.SlidingLog))
	const key = "client-203.0.113.9"
	for _, tt := range []struct {
		cmd     string
		needed  bool
		message string
	}{
		{"EVALSHA", true, "evalsha"},
		{"PEXPIRETIME", true, "Unknown Redis command called from script"},
		{"INFO", false, ""},
		{"SCRIPT", false, ""},
	} {
		t.Run(tt.cmd, func(t *testing.T) {
			srv := testredis.ServerWith(t, "--rename-command", tt.cmd, "")
			s, _ := optionsStore(t, srv.Addr)
			err := s.Check(ctx)
			if !tt.needed {
				require.NoError(t, err)
				for range 2 {
					_, err = s.Take(ctx, key, ps, 1, time.Now())
					require.NoError(t, err)
				}
				return
			}
			require.ErrorIs(t, err, redisstore.ErrMisconfigured)
			assert.Contains(t, err.Error(), tt.message)
			_, err = s.Take(ctx, key, ps, 1, time.Now())
			require.ErrorIs(t, err, redisstore.ErrMisconfigured)
			assert.Contains(t, err.Error(), tt.message)
			assert.NotContains(t, err.Error(), key)
		})
	}
}
