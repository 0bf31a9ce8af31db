package config_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/config"
)

// A key given twice in one object is an error naming it: encoding/json
// would keep the last value and silently drop the first, so a "mode":
// "observe" left further down a route (or a second "routes" list) would
// turn an enforced limit into one that passes everything.
func TestDuplicateKeysRejected(t *testing.T) {
	cases := []struct{ name, content, want string }{
		{"mode twice", `{"routes": [{"name": "r", "match": ["/r"], "mode": "enforce",
			"policies": [{"limit": 1, "window": "1s"}], "mode": "observe"}]}`,
			`routes[0]: "mode" is given twice`},
		{"mode under another case", `{"routes": [{"name": "r", "match": ["/r"], "mode": "enforce",
			"policies": [{"limit": 1, "window": "1s"}], "Mode": "observe"}]}`,
			`routes[0]: "Mode" is given twice (as "mode" too)`},
		{"routes twice", `{"routes": [{"name": "r", "match": ["/r"], "policies": [{"limit": 1, "window": "1s"}]}],
			"routes": [{"name": "r", "match": ["/other"], "policies": [{"limit": 1, "window": "1s"}]}]}`,
			`"routes" is given twice`},
		{"limit twice", `{"routes": [{"name": "r", "match": ["/r"], "policies": [{"limit": 1, "window": "1s", "limit": 1000000}]}]}`,
			`routes[0].policies[0]: "limit" is given twice`},
		{"tenant twice", `{"tenant_header": "X-Tenant", "routes": [{"name": "r", "match": ["/r"],
			"policies": [{"limit": 1, "window": "1s"}], "tenants": {"acme": "enforce", "acme": "observe"}}]}`,
			`routes[0].tenants: "acme" is given twice`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := config.Load(file(t, tc.content))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}

	// Keys that differ, even only in case inside a map, are not duplicates.
	_, err := config.Load(file(t, `{"tenant_header": "X-Tenant", "routes": [{"name": "r", "match": ["/r"],
		"policies": [{"limit": 1, "window": "1s"}], "tenants": {"acme": "enforce", "ACME": "observe"}}]}`))
	assert.NoError(t, err)
}
