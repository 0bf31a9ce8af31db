package config_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/config"
)

// A file saved as Latin-1 or Windows-1252 holds "/café" as bytes that are
// not UTF-8, which encoding/json decodes as "/caf\uFFFD": no framework
// reports that route, and its limits would silently never apply. Such a
// pattern is an error at load that says what happened; a name so
// mangled, a label only, still loads.
func TestMatchPatternNotUTF8Rejected(t *testing.T) {
	_, err := config.Load(file(t, "{\"routes\": [{\"name\": \"cafe\", \"match\": [\"/caf\xe9\"],\n"+
		"\"policies\": [{\"limit\": 1, \"window\": \"1s\"}]}]}"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "routes[0].match[0]: ")
	assert.Contains(t, err.Error(), "not UTF-8")

	_, err = config.Load(file(t, "{\"routes\": [{\"name\": \"caf\xe9\", \"match\": [\"/cafe\"],\n"+
		"\"policies\": [{\"limit\": 1, \"window\": \"1s\"}]}]}"))
	assert.NoError(t, err)
}
