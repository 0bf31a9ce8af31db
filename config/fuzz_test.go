package config_test

import (
	"strings"
	"testing"

	"github.com/ratewindow/ratewindow/config"
)

// FuzzCheck feeds arbitrary content to the parser and the checks behind
// Load: malformed input is an error that starts with the file's name,
// never a panic.
func FuzzCheck(f *testing.F) {
	seeds := []string{
		`{"routes": [{"name": "r", "match": ["/r"], "policies": [{"limit": 1, "window": "1s"}]}]}`,
		`{"tenant_header": "X-Tenant", "trusted_proxies": ["10.0.0.0/8", "::1"], "routes": [
		  {"name": "search", "match": ["/search"], "key": "header:X-Api-Key",
		   "policies": [{"name": "burst", "limit": 10, "window": "1s"}, {"limit": 600, "window": "1m", "algorithm": "sliding-log"}],
		   "mode": "observe", "tenants": {"acme": "enforce"}},
		  {"name": "default", "match": ["*"], "key": "route", "policies": [{"limit": 100, "window": "1m", "algorithm": "fixed-window"}]}]}`,
		`{"routes": [{"name": "r", "match": ["/r"], "policies": [{"limit": 9223372036854775807, "window": "2562047h"}]}]}`,
		`{"routes": [{"name": "r", "match": ["/r"], "policies": [{"limit": 1, "window": "1ns"}]}]}`,
		`{"routes": null}`, `[]`, `{}`, `null`, `{"routes": [null]}`, `{"routes": [{"policies": [null]}]}`,
		`{"Routes": [{"NAME": "r", "match": ["/r"], "policies": [{"LIMIT": 1, "Window": "1s"}]}]}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		err := config.Check(data)
		if err != nil && !strings.HasPrefix(err.Error(), "config: fuzz.json: ") {
			t.Fatalf("error without the file's name: %v", err)
		}
	})
}
