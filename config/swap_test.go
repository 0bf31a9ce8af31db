package config_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/config"
	"github.com/ratewindow/ratewindow/nethttp"
)

// swapLimits is a file whose "search" route observes everyone but enforces
// for tenant acme; its key strategy (each puts the tenant in the key),
// limit and the other routes vary with v, so that every reload rebuilds
// every route.
func swapLimits(v int) string {
	key := []string{"header:X-Client", "tenant"}[v%2]
	extra := ""
	for i := 0; i < v%3; i++ {
		extra += fmt.Sprintf(`, {"name": "extra%d", "match": ["/extra%d"], "policies": [{"limit": 1, "window": "1m"}]}`, i, i)
	}
	return fmt.Sprintf(`{"tenant_header": "X-Tenant", "routes": [
  {"name": "search", "match": ["/search"], "key": %q, "mode": "observe", "tenants": {"acme": "enforce"},
   "policies": [{"name": "hourly", "limit": %d, "window": "1h"}]}%s]}`, key, 1000+v, extra)
}

// While the file is reloaded over and over, requests of a route that
// every version of the file has are never passed as unmatched, and the
// tenant override every version has is never lost: acme is enforced, the
// others observed, on every request.
func TestReloadNeverDropsARouteOrAnOverride(t *testing.T) {
	path := file(t, swapLimits(0))
	s, err := config.Load(path, quiet())
	require.NoError(t, err)
	var skipped, acmeObserved, othersEnforced, decided atomic.Int64
	hook := func(ev ratewindow.Event) {
		switch {
		case ev.Outcome == ratewindow.Skipped:
			skipped.Add(1)
		case ev.Outcome == ratewindow.Allowed || ev.Outcome == ratewindow.WouldDeny || ev.Outcome == ratewindow.Denied:
			decided.Add(1)
			acme := strings.Contains(ev.Key, "acme")
			if acme && ev.ObserveOnly {
				acmeObserved.Add(1)
			}
			if !acme && !ev.ObserveOnly {
				othersEnforced.Add(1)
			}
		}
	}
	mw, err := nethttp.New(nil, append(s.Options(), ratewindow.WithOnDecision(hook))...)
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.Handle("GET /search", mw(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})))

	// Each worker sends at least each requests, and keeps going until
	// minReloads reloads have happened while they run.
	const workers, each, minReloads = 8, 100, 50
	var reloads atomic.Int64
	var sent atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each || reloads.Load() < minReloads; i++ {
				sent.Add(1)
				r := httptest.NewRequest(http.MethodGet, "/search", nil)
				tenant := []string{"acme", "beta"}[(w+i)%2]
				r.Header.Set("X-Tenant", tenant)
				r.Header.Set("X-Client", fmt.Sprintf("%s-%d", tenant, w))
				mux.ServeHTTP(httptest.NewRecorder(), r)
			}
		}()
	}
	done := waitCh(&wg)
	for stop := false; !stop; {
		write(t, path, swapLimits(int(reloads.Load())+1))
		require.NoError(t, s.Reload())
		reloads.Add(1)
		select {
		case <-done:
			stop = true
		default:
		}
	}
	t.Logf("%d reloads during %d requests", reloads.Load(), sent.Load())
	assert.Zero(t, skipped.Load(), "a route in every version was never missing")
	assert.Equal(t, sent.Load(), decided.Load())
	assert.Zero(t, acmeObserved.Load(), "acme's override was never lost")
	assert.Zero(t, othersEnforced.Load(), "the others were always observed")
}
