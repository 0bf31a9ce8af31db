package redisstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// TestTakeAllocs: a Take on one policy allocates the request (arguments,
// keys and MessagePack buffer in one struct), the keys' bytes, go-redis's
// command and the reply string, plus the 24-byte box of the argument slice;
// go-redis's connection pool adds its own (3 in v9.23, checking the
// connection's health).
func TestTakeAllocs(t *testing.T) {
	s, _ := store(t, testredis.Standalone(t))
	ctx := context.Background()
	for _, alg := range []core.Algorithm{core.FixedWindow, core.SlidingWindow, core.SlidingLog} {
		ps := policies(t, core.Per(1_000_000_000, time.Hour).Using(alg))
		_, _ = s.Take(ctx, "k", ps, 1, base)
		allocs := testing.AllocsPerRun(200, func() { _, _ = s.Take(ctx, "k", ps, 1, base) })
		t.Logf("%s: %.1f allocations per Take", alg, allocs)
		assert.LessOrEqual(t, allocs, 8.0, alg.String())
	}
}
