package memory_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
)

// A caller of the Store methods directly can pass policies no Limiter
// would accept. Those the store cannot count under (a Window below a
// millisecond, a Limit beyond its 32-bit counts) are refused with an
// error wrapping core.ErrInvalidConfig: no panic, which would leave the
// shard's mutex held for every later call on it (net/http recovers a
// handler's panic and serves on), and no counts that wrap around.
func TestUnusablePoliciesAreRefused(t *testing.T) {
	ctx := context.Background()
	good := policies(t, core.PerSecond(10))
	for _, p := range []core.Policy{
		core.Per(10, 0),
		core.Per(10, 500*time.Microsecond).Using(core.FixedWindow),
		core.Per(10, -time.Second).Using(core.SlidingLog),
		core.Per(core.MaxLimit+1, time.Second).Using(core.FixedWindow),
	} {
		t.Run(p.String(), func(t *testing.T) {
			s := memory.New(memory.WithShards(1))
			for _, ps := range [][]core.Policy{{p}, {good[0], p}} {
				var err error
				answered(t, func() { _, err = s.Take(ctx, "k", ps, 1, t0) })
				assert.True(t, errors.Is(err, core.ErrInvalidConfig), "take: %v", err)
				answered(t, func() { _, err = s.Peek(ctx, "k", ps, 1, t0) })
				assert.True(t, errors.Is(err, core.ErrInvalidConfig), "peek: %v", err)
			}
			var err error
			answered(t, func() { _, err = s.Take(ctx, "other", good, 1, t0) })
			require.NoError(t, err)
		})
	}
}

// answered runs f and fails t if it panics or does not return within a
// generous bound (a shard's mutex left held blocks it for ever).
func answered(t *testing.T, f func()) {
	t.Helper()
	done := make(chan any, 1)
	go func() {
		defer func() { done <- recover() }()
		f()
	}()
	select {
	case v := <-done:
		assert.Nil(t, v, "panicked")
	case <-time.After(10 * time.Second):
		require.FailNow(t, "no answer: the store is stuck")
	}
}
