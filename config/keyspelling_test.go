package config_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/config"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

// The store key of every key strategy is pinned: a key that changes its
// spelling starts every client's counts afresh on deploy. Per-tenant
// modes, and options of the user's that replace the mode or the limiter,
// do not change a request's key.
func TestKeySpellings(t *testing.T) {
	const plain = "192.0.2.1:1234"
	for _, c := range []struct {
		name, route, key, tenantHeader string
		remote                         string
		headers                        map[string]string
		want                           string
	}{
		{name: "default", remote: plain, want: "search:ip:192.0.2.1"},
		{name: "ip", key: "ip", remote: plain, want: "search:ip:192.0.2.1"},
		{name: "ip behind a trusted proxy", key: "ip", remote: "10.0.0.1:1", headers: map[string]string{"X-Forwarded-For": "198.51.100.7"}, want: "search:ip:198.51.100.7"},
		{name: "ip v6", key: "ip", remote: "[2001:db8::1]:1", want: "search:ip:2001:db8::/64"},
		{name: "header", key: "header:X-Client", remote: plain, headers: map[string]string{"X-Client": " c1 "}, want: "search:hdr:x-client:c1"},
		{name: "header absent", key: "header:X-Client", remote: plain, want: "search:ip:192.0.2.1"},
		{name: "header long", key: "header:X-Client", remote: plain, headers: map[string]string{"X-Client": strings.Repeat("x", 600)}, want: "search:h:fcc5a00ec938e7edfb4694ab6f5777e6"},
		{name: "bearer", key: "bearer", remote: plain, headers: map[string]string{"Authorization": "Bearer tok"}, want: "search:h:aba9477b3cd448d1fd6230b46320b1c5"},
		{name: "bearer absent", key: "bearer", remote: plain, want: "search:ip:192.0.2.1"},
		{name: "route", key: "route", remote: plain, want: "search:route:GET /search"},
		{name: "tenant", key: "tenant", tenantHeader: "X-Tenant", remote: plain, headers: map[string]string{"X-Tenant": " ACME "}, want: "search:hdr:x-tenant:ACME"},
		{name: "tenant absent", key: "tenant", tenantHeader: "X-Tenant", remote: plain, want: "search:ip:192.0.2.1"},
		{name: "tenant blank", key: "tenant", tenantHeader: "X-Tenant", remote: plain, headers: map[string]string{"X-Tenant": "   "}, want: "search:ip:192.0.2.1"},
		{name: "tenant long", key: "tenant", tenantHeader: "X-Tenant", remote: plain, headers: map[string]string{"X-Tenant": strings.Repeat("t", 700)}, want: "search:h:16e7fffc5e03e02a91e4a74f2fd98a81"},
		{name: "tenant by Host", key: "tenant", tenantHeader: "Host", remote: plain, headers: map[string]string{"Host": "ACME.example:443"}, want: "search:hdr:host:acme.example"},
		{name: "route name with a colon", route: "a:b", key: "header:X-Client", remote: plain, headers: map[string]string{"X-Client": "c1"}, want: "a::b:hdr:x-client:c1"},
	} {
		if c.route == "" {
			c.route = "search"
		}
		if c.tenantHeader == "" {
			c.tenantHeader = "X-Tenant"
		}
		five, err := core.NewLimiter(memory.New(), []core.Policy{core.PerHour(5)})
		require.NoError(t, err)
		for _, v := range []struct {
			name    string
			tenants string
			after   []ratewindow.Option
		}{
			{name: "alone"},
			{name: "with tenants", tenants: `, "tenants": {"acme": "observe", "acme.example": "observe"}`},
			{name: "with tenants, mode replaced", tenants: `, "tenants": {"acme": "observe"}`,
				after: []ratewindow.Option{ratewindow.WithObserveOnlyFunc(func(keyfuncs.Request) bool { return false })}},
			{name: "limiter replaced", after: []ratewindow.Option{ratewindow.WithLimiterFunc(func(keyfuncs.Request, string) (*core.Limiter, error) { return five, nil })}},
		} {
			t.Run(c.name+"/"+v.name, func(t *testing.T) {
				s, err := config.Load(file(t, `{"tenant_header": "`+c.tenantHeader+`", "trusted_proxies": ["10.0.0.0/8"], "routes": [
  {"name": "`+c.route+`", "match": ["/search"], "key": "`+c.key+`"`+v.tenants+`, "policies": [{"limit": 5, "window": "1h"}]}]}`), quiet())
				require.NoError(t, err)
				var events []ratewindow.Event
				h := serverWith(t, s, append(v.after, ratewindow.WithOnDecision(func(ev ratewindow.Event) { events = append(events, ev) }))...)
				r := httptest.NewRequest(http.MethodGet, "/search", nil)
				r.RemoteAddr = c.remote
				for name, value := range c.headers {
					if name == "Host" {
						r.Host = value
					}
					r.Header.Set(name, value)
				}
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				require.Len(t, events, 1)
				assert.Equal(t, ratewindow.Allowed, events[0].Outcome)
				assert.Equal(t, c.want, events[0].Key)
			})
		}
	}
}
