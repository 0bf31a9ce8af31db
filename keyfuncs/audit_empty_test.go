package keyfuncs_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/ratewindow/ratewindow/keyfuncs"
)

// A key func of your own that returns "" has found no key: the middleware
// answers such a request as unclassified. Wrapped in a combinator, the
// empty key must stay "no key", not become one real key ("login:",
// "cmp:|ip:192.0.2.1", the hash of "") that every keyless client shares,
// where one of them would spend the quota of all the others.
func TestCombinatorsKeepAnEmptyKeyKeyless(t *testing.T) {
	empty := func(keyfuncs.Request) (string, error) { return "", nil }
	r := req("192.0.2.1:1234")
	for name, f := range map[string]keyfuncs.KeyFunc{
		"Prefix":          keyfuncs.Prefix("login", empty),
		"Hashed":          keyfuncs.Hashed(empty),
		"Compose first":   keyfuncs.Compose("|", empty, keyfuncs.RemoteIP),
		"Compose last":    keyfuncs.Compose("|", keyfuncs.RemoteIP, empty),
		"Compose nested":  keyfuncs.Compose("|", keyfuncs.Route, keyfuncs.Prefix("user", empty)),
		"Header fallback": keyfuncs.Header("X-API-Key", keyfuncs.Prefix("anon", empty)),
	} {
		k, err := f(r)
		assert.ErrorIs(t, err, keyfuncs.ErrNoKey, "%s gave the key %q", name, k)
		assert.Empty(t, k, name)
	}

	// A part with a key is unaffected.
	k, err := keyfuncs.Prefix("login", keyfuncs.RemoteIP)(r)
	assert.NoError(t, err)
	assert.Equal(t, "login:ip:192.0.2.1", k)
}
