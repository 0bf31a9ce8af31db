package keyfuncs_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

// Strategies built from an argument that can never give a key are
// configuration mistakes: every request fails with an error wrapping both
// ErrNoKey (so the middleware answers rather than passes it) and
// core.ErrInvalidConfig (so a hook can tell the mistake from a client that
// sent no key), as a nil part or a reserved prefix do. A FromContext whose
// context key no context can hold (nil, or of a type that is not
// comparable: context.WithValue refuses both) would otherwise fall back
// silently on every request, or fail as if every client had sent no key.
func TestMistakesAreTold(t *testing.T) {
	r := req("192.0.2.1:1")
	r.Ctx = context.Background()
	for name, f := range map[string]keyfuncs.KeyFunc{
		"Constant(empty)":             keyfuncs.Constant(""),
		"Compose(no parts)":           keyfuncs.Compose("|"),
		"FromContext(nil key)":        keyfuncs.FromContext(nil, keyfuncs.RemoteIP),
		"FromContext(nil key, nil)":   keyfuncs.FromContext(nil, nil),
		"FromContext(slice key)":      keyfuncs.FromContext([]string{"user"}, keyfuncs.RemoteIP),
		"FromContext(map key)":        keyfuncs.FromContext(map[string]int{}, nil),
		"FromContext(struct of func)": keyfuncs.FromContext(struct{ f func() }{}, keyfuncs.RemoteIP),
	} {
		assert.NotPanics(t, func() {
			k, err := f(r)
			assert.Empty(t, k, name)
			assert.ErrorIs(t, err, keyfuncs.ErrNoKey, name)
			assert.ErrorIs(t, err, core.ErrInvalidConfig, name)
		}, name)
	}

	// Comparable keys of every kind are fine, found or not.
	type key struct{ n int }
	for _, k := range []any{key{1}, new(int), "user", 7} {
		got, err := keyfuncs.FromContext(k, keyfuncs.RemoteIP)(r)
		assert.NoError(t, err)
		assert.Equal(t, "ip:192.0.2.1", got)
	}
}
