package redisstore

import (
	"encoding/binary"
	"math"

	"github.com/ratewindow/ratewindow/core"
)

// The scripts take their numbers as one MessagePack argument that cmsgpack
// unpacks in one C call: no tonumber (strtod, twice) per value, and one
// argument for Redis to parse instead of seven or more. Only the three
// kinds of value the scripts need are written, each in its shortest form.

// appendArgs appends the script's argument for one call: now, cost, charge,
// serverTime, then algorithm letter, limit and window per policy.
func appendArgs(b []byte, now, cost int64, charge, serverTime bool, policies []core.Policy) []byte {
	b = appendInt(b, now)
	b = appendInt(b, cost)
	b = appendBool(b, charge)
	b = appendBool(b, serverTime)
	for i := range policies {
		p := &policies[i]
		b = append(b, 0xa1, algCode(p.Algorithm)) // a one-byte string
		b = appendInt(b, p.Limit)
		b = appendInt(b, p.WindowMillis())
	}
	return b
}

// argsSize is an upper bound on the size of appendArgs' output.
func argsSize(policies int) int { return 9 + 9 + 1 + 1 + policies*(2+9+9) }

// appendInt appends v as a MessagePack integer.
func appendInt(b []byte, v int64) []byte {
	switch {
	case v >= -32 && v < 128:
		return append(b, byte(v)) // positive or negative fixint
	case v >= math.MinInt32 && v <= math.MaxInt32:
		return binary.BigEndian.AppendUint32(append(b, 0xd2), uint32(v))
	default:
		return binary.BigEndian.AppendUint64(append(b, 0xd3), uint64(v))
	}
}

// appendBool appends v as a MessagePack boolean.
func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 0xc3)
	}
	return append(b, 0xc2)
}
