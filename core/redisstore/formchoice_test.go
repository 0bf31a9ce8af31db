package redisstore_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// The form a write takes (see docs/redis.md, Keys and memory): compact
// when the window is a second or more and the caller's clock is at most
// half a second behind Redis's; full otherwise. A compact key written by a
// caller further behind would expire, on Redis's clock, before its window
// ends on the caller's; a window under a second leaves too little room for
// a key's expiry to move (MIGRATE, RESTORE) and still name its window.
func TestFormChoice(t *testing.T) {
	c := testredis.Standalone(t)
	s, prefix := store(t, c)
	ctx := context.Background()
	for _, alg := range []core.Algorithm{core.FixedWindow, core.SlidingWindow} {
		for _, tt := range []struct {
			window  time.Duration
			behind  time.Duration // the caller's clock behind the real one
			compact bool
		}{
			{time.Hour, 0, true},
			{time.Hour, 200 * time.Millisecond, true},
			{time.Hour, 800 * time.Millisecond, false},
			{time.Hour, 3 * time.Second, false},
			{time.Second, 0, true},
			{999 * time.Millisecond, 0, false},
			{100 * time.Millisecond, 0, false},
		} {
			user := fmt.Sprintf("%v-%v-%v", alg, tt.window, tt.behind)
			ps := policies(t, core.Per(10, tt.window).Using(alg))
			_, err := s.Take(ctx, user, ps, 1, time.Now().Add(-tt.behind))
			require.NoError(t, err)
			assert.Equal(t, tt.compact, compact(t, c, onlyKey(t, c, prefix, user)), "%s: compact", user)
		}
	}
}
