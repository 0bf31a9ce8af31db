package config_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/config"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

// headerMap is a ResponseWriter that keeps only its header map.
type headerMap struct{ h http.Header }

func (w *headerMap) Header() http.Header         { return w.h }
func (w *headerMap) Write(b []byte) (int, error) { return len(b), nil }
func (w *headerMap) WriteHeader(int)             {}

// allocsPerRequest serves GET target with the header hdr through h, checks
// that the response carries the RateLimit field (the request was limited),
// and returns the allocations one request makes.
func allocsPerRequest(t *testing.T, h http.Handler, target string, hdr http.Header) float64 {
	t.Helper()
	r := httptest.NewRequest(http.MethodGet, target, nil)
	r.Header = hdr
	w := &headerMap{h: http.Header{}}
	serve := func() {
		clear(w.h)
		h.ServeHTTP(w, r)
	}
	serve()
	require.NotEmpty(t, w.h.Get("RateLimit"), target)
	return testing.AllocsPerRun(200, serve)
}

// A route's per-tenant modes cost its requests no allocation: on a route
// keyed by tenant, the tenant's key is made once, for the key and the
// mode alike, so a request allocates no more than on the same route
// without tenants.
func TestTenantModesAllocateNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	path := file(t, `{"tenant_header": "X-Tenant", "routes": [
  {"name": "canary", "match": ["/search"], "key": "tenant", "mode": "observe", "tenants": {"acme": "enforce"},
   "policies": [{"limit": 1000000, "window": "1h", "algorithm": "fixed-window"}]},
  {"name": "steady", "match": ["/other"], "key": "tenant", "mode": "enforce",
   "policies": [{"limit": 1000000, "window": "1h", "algorithm": "fixed-window"}]}]}`)
	s, err := config.Load(path, quiet())
	require.NoError(t, err)
	h := server(t, s)
	tenant := http.Header{"X-Tenant": {"acme"}}
	withTenants, without := allocsPerRequest(t, h, "/search", tenant), allocsPerRequest(t, h, "/other", tenant)
	t.Logf("%.2f allocations per request with tenants, %.2f without", withTenants, without)
	assert.LessOrEqual(t, withTenants, without)
}

// Options of the user's that decide the mode whatever the file says (an
// observe-only func given after Options, or WithObserveOnly(true)) make
// the file's per-tenant modes moot: the tenant is then not looked up for
// a mode no one uses, and a route with tenants costs its requests no
// more than one without.
func TestReplacedTenantModesAllocateNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	path := file(t, `{"tenant_header": "X-Tenant", "routes": [
  {"name": "canary", "match": ["/search"], "key": "header:X-Client", "mode": "observe", "tenants": {"acme": "enforce"},
   "policies": [{"limit": 1000000, "window": "1h", "algorithm": "fixed-window"}]},
  {"name": "steady", "match": ["/other"], "key": "header:X-Client", "mode": "enforce",
   "policies": [{"limit": 1000000, "window": "1h", "algorithm": "fixed-window"}]}]}`)
	s, err := config.Load(path, quiet())
	require.NoError(t, err)
	for name, mode := range map[string]ratewindow.Option{
		"observe-only func": ratewindow.WithObserveOnlyFunc(func(keyfuncs.Request) bool { return false }),
		"observe-only":      ratewindow.WithObserveOnly(true),
	} {
		h := serverWith(t, s, mode)
		hdr := http.Header{"X-Tenant": {"acme"}, "X-Client": {"c1"}}
		withTenants, without := allocsPerRequest(t, h, "/search", hdr), allocsPerRequest(t, h, "/other", hdr)
		t.Logf("%s: %.2f allocations per request with tenants, %.2f without", name, withTenants, without)
		assert.LessOrEqual(t, withTenants, without, name)
	}
}
