package config_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/config"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/core/redisstore"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// limits returns a file with a "search" route (limit per hour, keyed by
// X-Client, in mode, with tenant modes) and an "other" route.
func limits(limit int, mode, tenants string, otherLimit int) string {
	return fmt.Sprintf(`{
  "tenant_header": "X-Tenant",
  "routes": [
    {"name": "search", "match": ["/search"], "key": "header:X-Client",
     "policies": [{"name": "hourly", "limit": %d, "window": "1h", "algorithm": "fixed-window"}],
     "mode": %q, "tenants": {%s}},
    {"name": "other", "match": ["/other"], "key": "header:X-Client",
     "policies": [{"limit": %d, "window": "1h"}]}
  ]
}`, limit, mode, tenants, otherLimit)
}

func TestLoadEnforcesPerRoute(t *testing.T) {
	s, err := config.Load(file(t, limits(3, "enforce", "", 2)))
	require.NoError(t, err)
	h := server(t, s)
	assert.Equal(t, map[int]int{200: 3, 429: 2}, statuses(h, 5, "/search", "c1", ""))
	assert.Equal(t, map[int]int{200: 3}, statuses(h, 3, "/search", "c2", ""), "per key")
	assert.Equal(t, map[int]int{200: 2, 429: 1}, statuses(h, 3, "/other", "c1", ""), "routes never share counts")
	assert.Equal(t, map[int]int{200: 10}, statuses(h, 10, "/", "c1", ""), "no route matches: not limited")
}

func TestMatchAny(t *testing.T) {
	s, err := config.Load(file(t, `{"routes": [
		{"name": "search", "match": ["/search"], "policies": [{"limit": 5, "window": "1m"}]},
		{"name": "rest", "match": ["*"], "key": "route", "policies": [{"limit": 2, "window": "1m"}]}]}`))
	require.NoError(t, err)
	h := server(t, s)
	assert.Equal(t, map[int]int{200: 5, 429: 1}, statuses(h, 6, "/search", "", ""))
	// "route": one quota for the route, whoever calls.
	assert.Equal(t, 200, get(h, "/other", "a", ""))
	assert.Equal(t, 200, get(h, "/other", "b", ""))
	assert.Equal(t, 429, get(h, "/other", "c", ""))
	assert.Equal(t, 200, get(h, "/", "c", ""), "another route pattern, another quota")
}

// TestCanaryRollout follows a rollout done by editing the file: observe
// for everyone, enforce for one tenant, then for all.
func TestCanaryRollout(t *testing.T) {
	path := file(t, limits(2, "observe", "", 100))
	s, err := config.Load(path)
	require.NoError(t, err)
	h := server(t, s)
	assert.Equal(t, map[int]int{200: 4}, statuses(h, 4, "/search", "a1", "acme"), "observe: never blocks")

	write(t, path, limits(2, "observe", `"acme": "enforce"`, 100))
	require.NoError(t, s.Reload())
	assert.Equal(t, 429, get(h, "/search", "a1", "acme"), "acme enforced, its count kept")
	assert.Equal(t, map[int]int{200: 4}, statuses(h, 4, "/search", "b1", "beta"), "beta still observed")

	write(t, path, limits(2, "enforce", "", 100))
	require.NoError(t, s.Reload())
	assert.Equal(t, 429, get(h, "/search", "b1", "beta"), "enforced for all")
	assert.Equal(t, map[int]int{200: 2, 429: 1}, statuses(h, 3, "/search", "c1", "gamma"))

	write(t, path, limits(2, "enforce", `"beta": "observe"`, 100))
	require.NoError(t, s.Reload())
	assert.Equal(t, 200, get(h, "/search", "b1", "beta"), "a tenant can be rolled back alone")
}

func TestReloadKeepsCountsOfChangedLimit(t *testing.T) {
	path := file(t, limits(5, "enforce", "", 100))
	s, err := config.Load(path)
	require.NoError(t, err)
	h := server(t, s)
	assert.Equal(t, map[int]int{200: 5, 429: 1}, statuses(h, 6, "/search", "c", ""))
	// Same name, window and algorithm: the count (5) carries over.
	write(t, path, limits(8, "enforce", "", 100))
	require.NoError(t, s.Reload())
	assert.Equal(t, map[int]int{200: 3, 429: 1}, statuses(h, 4, "/search", "c", ""))
}

// TestReloadUnderLoadKeepsCounts reloads the file many times while
// requests of one client arrive from several goroutines: the client gets
// exactly its limit, neither more (counts lost at a reload) nor less.
func TestReloadUnderLoadKeepsCounts(t *testing.T) {
	t.Run("memory", func(t *testing.T) { reloadUnderLoad(t, memory.New()) })
	for name, rdb := range testredis.Universal(t) {
		t.Run("redis "+name, func(t *testing.T) {
			store, err := redisstore.New(rdb, redisstore.WithPrefix(testredis.Prefix(t)))
			require.NoError(t, err)
			reloadUnderLoad(t, store)
		})
	}
}

func reloadUnderLoad(t *testing.T, store core.Store) {
	// Each worker sends at least each requests, and keeps going until
	// minReloads reloads have happened while they run.
	const limit, workers, each, minReloads = 150, 6, 50, 20
	awayFromWindowEnd(time.Hour) // the search route's fixed window
	path := file(t, limits(limit, "enforce", "", 1))
	s, err := config.Load(path, config.WithStore(store))
	require.NoError(t, err)
	h := server(t, s)

	var allowed, denied, reloads atomic.Int64
	var wg sync.WaitGroup
	start := make(chan struct{})
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for i := 0; i < each || reloads.Load() < minReloads; i++ {
				switch get(h, "/search", "client", "") {
				case http.StatusOK:
					allowed.Add(1)
				case http.StatusTooManyRequests:
					denied.Add(1)
				}
			}
		}()
	}
	finished := waitCh(&wg)
	close(start)
	for done := false; !done; {
		// Another route's limit changes; the search route is rebuilt too.
		n := reloads.Load()
		write(t, path, limits(limit, "enforce", "", int(2+n)))
		require.NoError(t, s.Reload())
		reloads.Add(1)
		select {
		case <-finished:
			done = true
		default:
		}
	}
	total := allowed.Load() + denied.Load()
	t.Logf("%d reloads during %d requests", reloads.Load(), total)
	assert.GreaterOrEqual(t, total, int64(workers*each))
	assert.Equal(t, int64(limit), allowed.Load(), "exactly the limit, across every reload")
}

// awayFromWindowEnd waits, if a fixed window of length w ends within the
// next 30 s, until it has ended: the test then counts in one window.
func awayFromWindowEnd(w time.Duration) {
	now := time.Now()
	if left := now.Truncate(w).Add(w).Sub(now); left < 30*time.Second {
		time.Sleep(left + 100*time.Millisecond)
	}
}

func waitCh(wg *sync.WaitGroup) <-chan struct{} {
	ch := make(chan struct{})
	go func() { wg.Wait(); close(ch) }()
	return ch
}

func TestBrokenFileChangesNothing(t *testing.T) {
	path := file(t, limits(3, "enforce", "", 100))
	var logs bytes.Buffer
	var reported []error
	s, err := config.Load(path,
		config.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))),
		config.WithOnReload(func(err error) { reported = append(reported, err) }))
	require.NoError(t, err)
	h := server(t, s)
	assert.Equal(t, map[int]int{200: 2}, statuses(h, 2, "/search", "c", ""))

	for _, broken := range []struct{ content, want string }{
		{limits(0, "enforce", "", 100), "routes[0].policies[0].limit: must be > 0"},
		{limits(3, "enforce", "", 100)[:40], "parse: unexpected EOF"},
		{limits(3, "enfroce", "", 100), `routes[0].mode: "enfroce" is not`},
	} {
		reported = nil
		write(t, path, broken.content)
		err := s.Reload()
		require.Error(t, err)
		assert.ErrorContains(t, err, broken.want)
		assert.ErrorContains(t, err, path)
		require.Len(t, reported, 1)
		assert.Equal(t, err, reported[0])
		assert.Equal(t, err, s.Reload(), "still broken")
		assert.Len(t, reported, 1, "reported once per content")
	}
	assert.Contains(t, logs.String(), "reload rejected")
	assert.Contains(t, logs.String(), "must be > 0")
	// The running configuration, and its counts, are untouched.
	assert.Equal(t, map[int]int{200: 1, 429: 1}, statuses(h, 2, "/search", "c", ""))

	require.NoError(t, os.Remove(path))
	assert.ErrorIs(t, s.Reload(), os.ErrNotExist)
	assert.Equal(t, 429, get(h, "/search", "c", ""))

	reported = nil
	write(t, path, limits(4, "enforce", "", 100))
	require.NoError(t, s.Reload())
	assert.Equal(t, []error{nil}, reported)
	assert.Equal(t, map[int]int{200: 1, 429: 1}, statuses(h, 2, "/search", "c", ""))
}

func TestWatchAppliesEdits(t *testing.T) {
	path := file(t, limits(1, "observe", "", 100))
	applied := make(chan error, 10)
	s, err := config.Load(path, config.WithOnReload(func(err error) { applied <- err }))
	require.NoError(t, err)
	h := server(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Watch(ctx, 10*time.Millisecond); close(done) }()
	defer func() { cancel(); <-done }()

	assert.Equal(t, map[int]int{200: 3}, statuses(h, 3, "/search", "c", ""))
	write(t, path, limits(1, "enforce", "", 100))
	select {
	case err := <-applied:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("the edit was not applied within 10s")
	}
	assert.Equal(t, 429, get(h, "/search", "c", ""))
}

func TestLoadErrors(t *testing.T) {
	_, err := config.Load("/nonexistent/limits.json")
	assert.ErrorIs(t, err, os.ErrNotExist)
}
