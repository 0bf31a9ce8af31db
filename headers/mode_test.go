package headers_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/headers"
)

func TestModeStringAndParse(t *testing.T) {
	for _, m := range []headers.Mode{headers.Draft8, headers.Draft7, headers.Draft6, headers.Legacy, headers.None} {
		got, err := headers.ParseMode(m.String())
		require.NoError(t, err)
		assert.Equal(t, m, got)
	}
	assert.Equal(t, "draft-8", headers.Mode(0).String(), "the zero value")
	for in, want := range map[string]headers.Mode{
		" Draft-8 ": headers.Draft8, "DRAFT-7": headers.Draft7, "draft-6": headers.Draft6,
		"ietf": headers.Draft8, "LEGACY": headers.Legacy, "none": headers.None,
	} {
		got, err := headers.ParseMode(in)
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
	for _, bad := range []string{"", "draft-9", "x-ratelimit", "ietf10"} {
		_, err := headers.ParseMode(bad)
		assert.ErrorIs(t, err, core.ErrInvalidConfig, bad)
	}
	assert.Equal(t, "Mode(9)", headers.Mode(9).String())
	// One past the last name: the bound of the table, not an index panic.
	assert.Equal(t, "Mode(5)", (headers.None + 1).String())

	// The old name of the separate fields is refused with a hint, rather
	// than read as either draft.
	_, err := headers.ParseMode("draft7")
	assert.ErrorIs(t, err, core.ErrInvalidConfig)
	assert.Contains(t, err.Error(), "draft-6")
}

func TestWriterUnknownMode(t *testing.T) {
	// The middleware rejects an unknown mode at construction (see the
	// configuration tests); Write itself, given one, writes nothing rather
	// than something wrong.
	h, set := capture()
	headers.Writer{Mode: 42}.Write(set, allowedDecision, t0)
	assert.Empty(t, h)
}
