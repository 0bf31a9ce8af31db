package redisstore

import (
	"encoding/binary"
	"errors"
	"math"
)

// The scripts take their numbers as one MessagePack argument that cmsgpack
// unpacks in one C call (no tonumber, which runs strtod twice per value,
// and one argument for Redis to parse instead of seven or more), and they
// reply with one MessagePack string (go-redis reads it with one allocation,
// where an array of integers costs one per element and one for the slice).
// These are the few forms the two sides need.

// appendInt appends v as a MessagePack integer, in its shortest form.
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

// appendChar appends c as a MessagePack string of one byte.
func appendChar(b []byte, c byte) []byte { return append(b, 0xa1, c) }

var errNotInt = errors.New("reply is not a MessagePack integer")

// readInt reads the MessagePack integer that starts s, in any of the forms
// cmsgpack writes for a Lua number with an integral value, and returns it
// and the rest of s.
func readInt(s string) (int64, string, error) {
	if s == "" {
		return 0, s, errNotInt
	}
	c := s[0]
	switch {
	case c < 0x80:
		return int64(c), s[1:], nil // positive fixint
	case c >= 0xe0:
		return int64(int8(c)), s[1:], nil // negative fixint
	}
	size := intSize[c]
	if size == 0 || len(s) < 1+size {
		return 0, s, errNotInt
	}
	var u uint64
	for i := 1; i <= size; i++ {
		u = u<<8 | uint64(s[i])
	}
	var v int64
	switch c {
	case 0xcc, 0xcd, 0xce, 0xcf: // uint 8, 16, 32, 64
		if u > math.MaxInt64 {
			return 0, s, errNotInt
		}
		v = int64(u)
	default: // int 8, 16, 32, 64: sign-extend
		shift := 64 - 8*size
		v = int64(u<<shift) >> shift
	}
	return v, s[1+size:], nil
}

// intSize is the size in bytes of the value after each integer type byte.
var intSize = [256]int{0xcc: 1, 0xcd: 2, 0xce: 4, 0xcf: 8, 0xd0: 1, 0xd1: 2, 0xd2: 4, 0xd3: 8}
