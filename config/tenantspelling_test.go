package config_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/config"
)

// TestTenantModeFollowsTheTenantKey checks that a tenant's mode applies to
// every spelling of the tenant that the "tenant" key counts as that tenant:
// a client that spells its host anew (in capitals, with a port or the
// root's dot) shares the enforced tenant's quota and must not be let
// through as observed.
func TestTenantModeFollowsTheTenantKey(t *testing.T) {
	s, err := config.Load(file(t, `{"tenant_header": "Host", "routes": [
		{"name": "all", "match": ["*"], "key": "tenant", "mode": "observe",
		 "tenants": {"acme.example": "enforce"},
		 "policies": [{"limit": 1, "window": "1h"}]}]}`), quiet())
	require.NoError(t, err)
	h := server(t, s)
	send := func(host string) int {
		r := httptest.NewRequest(http.MethodGet, "/search", nil)
		r.Host = host
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}
	require.Equal(t, 200, send("acme.example"))
	require.Equal(t, 429, send("acme.example"), "acme is enforced")
	for _, host := range []string{"ACME.example", "acme.example:8080", "acme.example."} {
		assert.Equal(t, 429, send(host), "Host %q: acme's quota, spent, so acme's mode", host)
	}
	assert.Equal(t, 200, send("beta.example"))
	assert.Equal(t, 200, send("beta.example"), "beta is observed")
}

// TestTenantNameWithSpaceApplies checks that a tenant named with white
// space around it in the file is the tenant the key sees, as the header's
// value is trimmed: its mode is not silently left unused.
func TestTenantNameWithSpaceApplies(t *testing.T) {
	s, err := config.Load(file(t, `{"tenant_header": "X-Tenant", "routes": [
		{"name": "search", "match": ["/search"], "key": "tenant", "mode": "observe",
		 "tenants": {" acme ": "enforce"},
		 "policies": [{"limit": 1, "window": "1h"}]}]}`), quiet())
	require.NoError(t, err)
	h := server(t, s)
	assert.Equal(t, map[int]int{200: 1, 429: 2}, statuses(h, 3, "/search", "", "acme"))
	assert.Equal(t, map[int]int{200: 3}, statuses(h, 3, "/search", "", "beta"))
}

// TestTenantNamesOfOneTenantRejected checks that two names in one route's
// tenants that the key counts as one tenant are refused at load: which
// mode applied would otherwise depend on the spelling a client sends.
func TestTenantNamesOfOneTenantRejected(t *testing.T) {
	_, err := config.Load(file(t, `{"tenant_header": "Host", "routes": [
		{"name": "all", "match": ["*"], "policies": [{"limit": 1, "window": "1h"}],
		 "tenants": {"acme.example": "enforce", "ACME.example:443": "observe"}}]}`), quiet())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "routes[0].tenants[")
	assert.Contains(t, err.Error(), "same tenant")

	_, err = config.Load(file(t, `{"tenant_header": "X-Tenant", "routes": [
		{"name": "all", "match": ["*"], "policies": [{"limit": 1, "window": "1h"}],
		 "tenants": {"  ": "enforce"}}]}`), quiet())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "routes[0].tenants")
}
