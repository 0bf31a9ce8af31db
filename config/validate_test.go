package config_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/config"
)

// TestValidation checks that every field is validated, with an error that
// names it.
func TestValidation(t *testing.T) {
	const ok = `{"name": "r", "match": ["/r"], "policies": [{"limit": 1, "window": "1s"}]}`
	route := func(fields string) string {
		return `{"name": "r", "match": ["/r"], "policies": [{"limit": 1, "window": "1s"}], ` + fields + `}`
	}
	policy := func(fields string) string {
		return `{"name": "r", "match": ["/r"], "policies": [{"limit": 1, "window": "1s"}, {` + fields + `}]}`
	}
	doc := func(routes ...string) string { return `{"routes": [` + strings.Join(routes, ",") + `]}` }
	withTenant := func(routes ...string) string {
		return `{"tenant_header": "X-Tenant", "routes": [` + strings.Join(routes, ",") + `]}`
	}
	cases := []struct{ name, content, want string }{
		{"not json", `{"routes": [`, "parse: unexpected EOF"},
		// What a reload reads of a file truncated to be written in place.
		{"empty", "", "limits.json: parse: the file is empty"},
		{"blank", " \n\t", "limits.json: parse: the file is empty"},
		{"trailing data", doc(ok) + `{}`, "parse: unexpected data after the JSON document"},
		{"unknown field", `{"routez": []}`, `limits.json: unknown field "routez"`},
		{"unknown field in a policy", doc(ok, policy(`"limit": 1, "window": "1s", "burst": 3`)), `routes[1].policies[1]: unknown field "burst"`},
		{"wrong type", doc(policy(`"limit": "10", "window": "1s"`)), `routes[0].policies[1].limit: must be an integer, got a string "10"`},
		{"limit not an integer", doc(ok, policy(`"limit": 1.5, "window": "1s"`)), "routes[1].policies[1].limit: must be an integer, got 1.5"},
		{"window as a number", doc(ok, policy(`"limit": 1, "window": 60`)), "routes[1].policies[1].window: must be a string, got the number 60"},
		{"match not a list", doc(ok, `{"name": "s", "match": "/s", "policies": [{"limit": 1, "window": "1s"}]}`), `routes[1].match: must be an array, got a string "/s"`},
		{"tenants not a map", withTenant(ok, route(`"tenants": ["acme"]`)), "routes[1].tenants: must be an object, got an array"},
		{"tenant mode not a string", withTenant(route(`"tenants": {"acme": true}`)), `routes[0].tenants["acme"]: must be a string, got a boolean`},
		{"not an object", `[]`, "the document: must be an object, got an array"},
		{"tenant_header", `{"tenant_header": "X Tenant", "routes": [` + ok + `]}`, `tenant_header: "X Tenant" is not a header name`},
		{"trusted_proxies", `{"trusted_proxies": ["10.0.0.0/8", "nope"], "routes": [` + ok + `]}`, `trusted_proxies[1]: "nope" is not a CIDR`},
		{"routes missing", `{}`, "routes: must list at least one route"},
		{"name empty", doc(ok, `{"match": ["/x"], "policies": [{"limit": 1, "window": "1s"}]}`), "routes[1].name: must not be empty"},
		{"name space", doc(`{"name": "a b", "match": ["/x"], "policies": [{"limit": 1, "window": "1s"}]}`), `routes[0].name: "a b" must not contain white space`},
		{"name duplicate", doc(ok, `{"name": "r", "match": ["/x"], "policies": [{"limit": 1, "window": "1s"}]}`), `routes[1].name: "r" is also the name of routes[0]`},
		{"match missing", doc(`{"name": "r", "policies": [{"limit": 1, "window": "1s"}]}`), "routes[0].match: must list at least one route pattern"},
		{"match empty", doc(`{"name": "r", "match": ["/a", ""], "policies": [{"limit": 1, "window": "1s"}]}`), "routes[0].match[1]: must not be empty"},
		// No framework reports a route with white space in it: a pattern
		// written as registered on a ServeMux, method first, would never
		// match, and its route would silently go unlimited.
		{"match with a method", doc(ok, `{"name": "s", "match": ["GET /search"], "policies": [{"limit": 1, "window": "1s"}]}`), `routes[1].match[0]: "GET /search" contains white space`},
		{"match duplicate", doc(ok, `{"name": "s", "match": ["*", "/r"], "policies": [{"limit": 1, "window": "1s"}]}`), `routes[1].match[1]: "/r" is already matched by routes[0]`},
		{"key", doc(ok, route(`"key": "cookie"`)), `routes[1].key: "cookie" is not ip, header:NAME, bearer, tenant or route`},
		{"key header name", doc(route(`"key": "header:"`)), `routes[0].key: "header:" is not`},
		{"key tenant without header", doc(route(`"key": "tenant"`)), `routes[0].key: "tenant" needs tenant_header`},
		{"mode", doc(route(`"mode": "block"`)), `routes[0].mode: "block" is not "observe" or "enforce"`},
		{"tenants without header", doc(route(`"tenants": {"acme": "enforce"}`)), "routes[0].tenants: needs tenant_header"},
		{"tenant mode", withTenant(route(`"tenants": {"acme": "on"}`)), `routes[0].tenants["acme"]: "on" is not`},
		{"tenant name", withTenant(route(`"tenants": {"": "observe"}`)), "routes[0].tenants: a tenant name must not be empty"},
		{"policies missing", doc(`{"name": "r", "match": ["/r"]}`), "routes[0].policies: must list at least one policy"},
		{"policies too many", doc(`{"name": "r", "match": ["/r"], "policies": [
			{"limit": 1, "window": "1s"}, {"limit": 1, "window": "2s"}, {"limit": 1, "window": "3s"},
			{"limit": 1, "window": "4s"}, {"limit": 1, "window": "5s"}]}`), "routes[0].policies: at most 4 policies, got 5"},
		{"limit missing", doc(policy(`"window": "1s"`)), "routes[0].policies[1].limit: required"},
		{"limit zero", doc(policy(`"limit": 0, "window": "1m"`)), "routes[0].policies[1].limit: must be > 0"},
		{"limit negative", doc(policy(`"limit": -5, "window": "1m"`)), "routes[0].policies[1].limit: must be > 0"},
		{"limit past int64", doc(policy(`"limit": 99999999999999999999, "window": "1m"`)), "routes[0].policies[1].limit: 99999999999999999999 is out of range"},
		{"limit huge", doc(policy(`"limit": 9999999999, "window": "1m"`)), "routes[0].policies[1].limit: must be at most 4294967295"},
		{"window missing", doc(policy(`"limit": 1`)), "routes[0].policies[1].window: required"},
		{"window syntax", doc(policy(`"limit": 1, "window": "1 minute"`)), `routes[0].policies[1].window: "1 minute" is not a duration`},
		{"window zero", doc(policy(`"limit": 1, "window": "0s"`)), `routes[0].policies[1].window: must be > 0`},
		{"window negative", doc(policy(`"limit": 1, "window": "-1m"`)), `routes[0].policies[1].window: must be > 0`},
		{"window sub-ms", doc(policy(`"limit": 1, "window": "1500us"`)), "routes[0].policies[1].window: must be a whole number of milliseconds"},
		{"algorithm", doc(policy(`"limit": 1, "window": "1m", "algorithm": "token-bucket"`)), `routes[0].policies[1].algorithm: "token-bucket" is not sliding-window, fixed-window or sliding-log`},
		{"policy name duplicate", doc(policy(`"limit": 5, "window": "1s"`)), `routes[0].policies[1].name: "1s" is also the name of policies[0]`},
		// Such a name would be written with '_' in the RateLimit fields,
		// where "tier-é" and "tier-ü" could not be told apart.
		{"policy name not ASCII", doc(policy(`"name": "tier-é", "limit": 1, "window": "1m"`)), "routes[0].policies[1].name: "},
		{"policy name control character", doc(policy(`"name": "per\tminute", "limit": 1, "window": "1m"`)), "routes[0].policies[1].name: "},
		{"limit times window", doc(policy(`"limit": 4000000000, "window": "8760h"`)), "routes[0].policies[1]: "},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := config.Load(file(t, tc.content))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestValidFilesLoad(t *testing.T) {
	for _, content := range []string{
		`{"routes": [{"name": "r", "match": ["*"], "policies": [{"limit": 1, "window": "1s"}]}]}`,
		`{"tenant_header": "X-Tenant", "trusted_proxies": ["10.0.0.0/8", "192.0.2.1"], "routes": [
		  {"name": "a", "match": ["/a", "/a/{id}"], "key": "bearer", "mode": "observe", "tenants": {"t1": "enforce"},
		   "policies": [{"name": "burst", "limit": 10, "window": "1s", "algorithm": "sliding-log"},
		                {"limit": 100, "window": "1m", "algorithm": "fixed-window"},
		                {"limit": 1000, "window": "1h", "algorithm": "sliding-window"}]},
		  {"name": "b", "match": ["/b"], "key": "header:X-API-Key", "policies": [{"limit": 5, "window": "500ms"}]},
		  {"name": "c", "match": ["/c"], "key": "tenant", "policies": [{"limit": 5, "window": "90s"}]},
		  {"name": "d", "match": ["/d"], "key": "route", "mode": "enforce", "policies": [{"limit": 5, "window": "1s"}]}]}`,
	} {
		_, err := config.Load(file(t, content))
		assert.NoError(t, err)
	}
}
