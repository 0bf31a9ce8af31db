package core_test

import (
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/core/redisstore"
	"github.com/ratewindow/ratewindow/core/resilient"
)

// opaque is a store that does not say where it keeps its counts: its
// embedded interface hides the memory store's other methods.
type opaque struct{ core.Store }

func TestProcessLocal(t *testing.T) {
	// New sends nothing to Redis: no server is needed to build the store.
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	t.Cleanup(func() { _ = rdb.Close() })
	rs, err := redisstore.New(rdb)
	require.NoError(t, err)
	overMemory, err := resilient.New(memory.New(), resilient.WithFallback(2))
	require.NoError(t, err)
	overRedis, err := resilient.New(rs, resilient.WithFallback(2))
	require.NoError(t, err)

	for _, tc := range []struct {
		name  string
		store core.Store
		local bool
	}{
		{"memory", memory.New(), true},
		{"memory with max keys", memory.New(memory.WithMaxKeys(1 << 20)), true},
		{"redis", rs, false},
		{"resilient over memory", overMemory, true},
		{"resilient over redis, with a local fallback", overRedis, false},
		{"a store that does not say", opaque{memory.New()}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := core.NewLimiter(tc.store, []core.Policy{core.PerMinute(10)})
			require.NoError(t, err)
			assert.Equal(t, tc.local, l.ProcessLocal())
		})
	}
}
