package config_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/config"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
)

// logLimits returns a file whose "search" route has one sliding-log policy
// of limit per minute.
func logLimits(limit int) string {
	return fmt.Sprintf(`{"routes": [{"name": "search", "match": ["/search"], "key": "header:X-Client",
  "policies": [{"name": "api", "limit": %d, "window": "1m", "algorithm": "sliding-log"}]}]}`, limit)
}

// A store that cannot hold a route's policies (a memory store whose
// WithMaxKeys leaves a shard less than one key's sliding log) fails Load,
// and a reload to such a file keeps the running configuration.
func TestStoreRefusalIsAConfigError(t *testing.T) {
	// A shard's share of 16 units or less: a log of up to 1,000 records
	// weighs 504.
	store := memory.New(memory.WithMaxKeys(16))
	path := file(t, logLimits(1000))
	_, err := config.Load(path, config.WithStore(store))
	require.ErrorIs(t, err, core.ErrInvalidConfig)
	assert.ErrorContains(t, err, path+": routes[0].policies: memory: ")
	assert.ErrorContains(t, err, "WithMaxKeys(16)")

	write(t, path, limits(3, "enforce", "", 100)) // counters, one unit each
	var reported []error
	s, err := config.Load(path, config.WithStore(store),
		quiet(),
		config.WithOnReload(func(err error) { reported = append(reported, err) }))
	require.NoError(t, err)
	h := server(t, s)
	assert.Equal(t, map[int]int{200: 2}, statuses(h, 2, "/search", "c", ""))
	write(t, path, logLimits(1000))
	err = s.Reload()
	require.ErrorIs(t, err, core.ErrInvalidConfig)
	assert.ErrorContains(t, err, "WithMaxKeys(16)")
	require.Len(t, reported, 1)
	// The running configuration, and its counts, are untouched.
	assert.Equal(t, map[int]int{200: 1, 429: 1}, statuses(h, 2, "/search", "c", ""))
}
