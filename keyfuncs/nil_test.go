package keyfuncs

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/keytest"
)

func TestMisconfiguredFuncsFailWithoutPanic(t *testing.T) {
	r := &keytest.Request{}
	for name, f := range map[string]KeyFunc{
		"Bounded(nil)":       Bounded(64, nil),
		"Prefix(nil)":        Prefix("p:", nil),
		"Hashed(nil)":        Hashed(nil),
		"Compose(nil part)":  Compose(":", Route, nil),
		"Header(empty name)": Header("", RemoteIP),
		"Header(blank name)": Header("  ", nil),
		"Compose(no parts)":  Compose(":"),
		"Compose(empty sep)": Compose("", Route, Path),
		"Prefix(reserved)":   Prefix("ip", Route),
		"Header(bad name)":   Header("X Key", nil),
	} {
		require.NotPanics(t, func() {
			k, err := f(r)
			require.ErrorIs(t, err, ErrNoKey, name)
			require.Empty(t, k, name)
			if name != "Compose(no parts)" && name != "Header(nil fallback)" {
				require.ErrorIs(t, err, core.ErrInvalidConfig, name)
			}
		}, name)
	}
}
