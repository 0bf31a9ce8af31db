package config_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/config"
)

// A route pattern holding a character no framework reports in a route (a
// no-break space pasted from a page, a control character) never matches:
// loaded, its route would silently go unlimited. It is an error at load,
// as an ASCII space is.
func TestInvisibleCharacterInMatchRejected(t *testing.T) {
	for name, pattern := range map[string]string{
		"no-break space":  `/search\u00a0`,
		"method and NBSP": `GET\u00a0/search`,
		"NUL":             `/search\u0000`,
		"escape":          `/search\u001b`,
		"line separator":  `/search\u2028`,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := config.Load(file(t, `{"routes": [{"name": "search", "match": ["`+pattern+`"],
				"policies": [{"limit": 1, "window": "1s"}]}]}`))
			require.Error(t, err)
			assert.Contains(t, err.Error(), "routes[0].match[0]: ")
		})
	}
	_, err := config.Load(file(t, `{"routes": [{"name": "search\u00a0", "match": ["/search"],
		"policies": [{"limit": 1, "window": "1s"}]}]}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "routes[0].name: ")
}
