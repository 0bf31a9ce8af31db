package config_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/config"
)

// A match pattern that no framework can report is an error at load: its
// route would never match, and the limits it was written for would
// silently never apply.
func TestMatchPatternNoFrameworkReports(t *testing.T) {
	for _, tc := range []struct{ pattern, want string }{
		{"search", `routes[0].match[0]: "search" is not a route pattern`},
		{"https://api.example.com/search", `routes[0].match[0]: "https://api.example.com/search" is not a route pattern`},
		{"**", `routes[0].match[0]: "**" is not a route pattern`},
	} {
		_, err := config.Load(file(t, `{"routes": [{"name": "r", "match": ["`+tc.pattern+`"], "policies": [{"limit": 1, "window": "1s"}]}]}`))
		require.Error(t, err, tc.pattern)
		assert.ErrorContains(t, err, tc.want)
	}
	// Each of these is a route some framework reports.
	for _, p := range []string{"/", "/items/{id}", "/items/:id", "/files/*filepath", "/static/*", "/{$}", "example.com/search", "/a:b"} {
		_, err := config.Load(file(t, `{"routes": [{"name": "r", "match": ["`+p+`"], "policies": [{"limit": 1, "window": "1s"}]}]}`))
		assert.NoError(t, err, p)
	}
}
