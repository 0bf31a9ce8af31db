package config_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/config"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
)

// midCall is a store that runs a function, once, during the next Take: a
// reload that lands while a request waits for the store.
type midCall struct {
	core.Store
	next atomic.Pointer[func()]
}

func (m *midCall) Take(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
	if f := m.next.Swap(nil); f != nil {
		(*f)()
	}
	return m.Store.Take(ctx, key, ps, cost, now)
}

// A request of an observe-only route is never refused because a reload
// that removes the route lands during its store call: the configuration
// it was charged under observes it, the one that follows does not limit
// it at all.
func TestRouteRemovedMidRequestIsNotRefused(t *testing.T) {
	path := file(t, limits(1, "observe", "", 100))
	store := &midCall{Store: memory.New()}
	s, err := config.Load(path, config.WithStore(store), quiet())
	require.NoError(t, err)
	h := server(t, s)
	assert.Equal(t, map[int]int{200: 2}, statuses(h, 2, "/search", "c1", ""), "observed: over the limit, passed")

	removed := func() {
		write(t, path, `{"routes": [{"name": "other", "match": ["/other"], "policies": [{"limit": 1, "window": "1h"}]}]}`)
		require.NoError(t, s.Reload())
	}
	store.next.Store(&removed)
	assert.Equal(t, 200, get(h, "/search", "c1", ""), "observed, then not limited: never refused")
	require.Nil(t, store.next.Load(), "the reload ran during the store call")
	assert.Equal(t, 200, get(h, "/search", "c1", ""), "not limited")
}
