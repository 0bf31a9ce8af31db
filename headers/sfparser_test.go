package headers_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The test parser must itself be right, or the round trips prove nothing.
func TestSFParser(t *testing.T) {
	items, err := parseSFList(`"burst";q=10;w=1, "a\"b\\c";r=0;t=5;pk=:AQID:, tok;x=?1;y=1.5, (1 2);z`)
	require.NoError(t, err)
	require.Len(t, items, 4)
	assert.Equal(t, "burst", items[0].Value)
	q, _ := items[0].Param("q")
	assert.Equal(t, int64(10), q)
	assert.Equal(t, `a"b\c`, items[1].Value)
	pk, _ := items[1].Param("pk")
	assert.Equal(t, []byte{1, 2, 3}, pk)
	assert.Equal(t, sfToken("tok"), items[2].Value)
	x, _ := items[2].Param("x")
	assert.Equal(t, true, x)
	assert.Len(t, items[3].Value, 2)

	for _, bad := range []string{
		`"a`, `"a\x"`, "\"a\x01\"", "\"é\"", `"a";Q=1`, `"a";q=`, `"a",`, `"a" "b"`,
		`"a";q=1234567890123456`, `"a";q=1.`, `"a";q=--1`, `:AQ!D:`, `"a";q=?2`, `@1`, `"a"` + ",,",
	} {
		_, err := parseSFList(bad)
		assert.ErrorIs(t, err, errSF, "%q must not parse", bad)
	}
}
