package memory_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
)

// countingStore is a user's decorator: it embeds the memory store and
// overrides Take and Peek.
type countingStore struct {
	core.Store
	takes, peeks int
}

func (c *countingStore) Take(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
	c.takes++
	return c.Store.Take(ctx, key, ps, cost, now)
}

func (c *countingStore) Peek(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
	c.peeks++
	return c.Store.Peek(ctx, key, ps, cost, now)
}

// A Limiter goes through the Store interface whatever the store: a
// decorator that embeds the memory store is never bypassed, with one policy or
// several.
func TestDecoratorEmbeddingMemoryStoreIsCalled(t *testing.T) {
	for _, ps := range [][]core.Policy{
		{core.PerSecond(3)},
		{core.PerSecond(3), core.PerMinute(100)},
	} {
		s := &countingStore{Store: memory.New()}
		l, err := core.NewLimiter(s, ps)
		require.NoError(t, err)
		ctx := context.Background()
		for range 5 {
			_, err := l.Allow(ctx, "k")
			require.NoError(t, err)
		}
		_, err = l.Peek(ctx, "k", 1)
		require.NoError(t, err)
		require.Equal(t, 5, s.takes, "%d policies", len(ps))
		require.Equal(t, 1, s.peeks, "%d policies", len(ps))
	}
}
