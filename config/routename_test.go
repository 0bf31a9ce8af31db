package config_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/config"
)

// Two routes never share counts, whatever their names: a route whose name
// ends like another route's key namespace must not let a client of one
// route spend the quota of a client of the other.
func TestRouteNamesNeverShareCounts(t *testing.T) {
	s, err := config.Load(file(t, `{"routes": [
	  {"name": "a", "match": ["/search"], "key": "header:X-Client", "policies": [{"limit": 2, "window": "1m"}]},
	  {"name": "a:hdr:x-client", "match": ["/other"], "key": "ip", "policies": [{"limit": 2, "window": "1m"}]}]}`))
	require.NoError(t, err)
	h := server(t, s)
	// httptest requests come from 192.0.2.1. A client of /search names
	// itself after that address and spends its own quota...
	assert.Equal(t, map[int]int{http.StatusOK: 2, http.StatusTooManyRequests: 1}, statuses(h, 3, "/search", "ip:192.0.2.1", ""))
	// ...which must not be the quota of 192.0.2.1 on /other.
	assert.Equal(t, map[int]int{http.StatusOK: 2}, statuses(h, 2, "/other", "", ""))
}
