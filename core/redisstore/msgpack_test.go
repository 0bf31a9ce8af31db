package redisstore

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/internal/testredis"
)

// What appendInt and appendBool write, cmsgpack reads; what cmsgpack writes
// for integral numbers, readInt reads: checked against a real Redis, on the
// edges of every form.
func TestMessagePackAgreesWithCmsgpack(t *testing.T) {
	c := testredis.Standalone(t)
	ctx := context.Background()
	values := []int64{0, 1, 127, 128, 255, 256, 65535, 65536, math.MaxUint32, math.MaxUint32 + 1,
		1 << 52, 1_800_000_000_000, -1, -32, -33, -128, -129, -32768, -32769, math.MinInt32, math.MinInt32 - 1, -(1 << 52)}
	var packed []byte
	for _, v := range values {
		packed = appendInt(packed, v)
	}
	packed = appendBool(appendBool(packed, true), false)
	packed = appendChar(packed, 's')
	// The script unpacks our bytes and packs the numbers again: both
	// directions in one round trip.
	reply, err := c.Eval(ctx, `
		local v = {cmsgpack.unpack(ARGV[1])}
		local n = #v
		assert(v[n - 2] == true and v[n - 1] == false and v[n] == 's', 'bool or char')
		return cmsgpack.pack(unpack(v, 1, n - 3))`, nil, packed).Text()
	require.NoError(t, err)
	rest := reply
	for _, want := range values {
		var got int64
		got, rest, err = readInt(rest)
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
	assert.Empty(t, rest)
}

func TestReadIntRejects(t *testing.T) {
	for _, s := range []string{"", "\xcb\x3f\xf0\x00\x00\x00\x00\x00\x00", "\xa1s", "\xc3", "\xd2\x00\x01", "\xcf\xff\xff\xff\xff\xff\xff\xff\xff"} {
		_, rest, err := readInt(s)
		assert.ErrorIs(t, err, errNotInt, "%q", s)
		assert.Equal(t, s, rest)
	}
}
