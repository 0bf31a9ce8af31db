package redisstore

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/ratewindow/ratewindow/core"
)

// maxPlainTag is the longest user key used as a hash tag as it is; longer
// keys are hashed.
const maxPlainTag = 64

// hashedMark starts every hashed tag. Plain keys that start with it are
// hashed too, so a plain key can never collide with a hashed one.
const hashedMark = '#'

// tag returns the hash tag for a user key: the key itself when it is short
// and holds no brace, else '#' and the hex of the first 16 bytes of its
// SHA-256 (33 bytes whatever the key's length).
func tag(key string) string {
	if key != "" && len(key) <= maxPlainTag && key[0] != hashedMark && !strings.ContainsAny(key, "{}") {
		return key
	}
	sum := sha256.Sum256([]byte(key))
	var b [1 + 32]byte
	b[0] = hashedMark
	hex.Encode(b[1:], sum[:16])
	return string(b[:])
}

// algCode is the one-letter name of an algorithm in keys and in the
// script's arguments.
func algCode(a core.Algorithm) byte {
	switch a {
	case core.FixedWindow:
		return 'f'
	case core.SlidingLog:
		return 'l'
	default:
		return 's'
	}
}

// appendWindow appends a window in the largest unit that divides it
// exactly: "1h", "15m", "90s", "1500ms". Each window has one spelling.
func appendWindow(b []byte, ms int64) []byte {
	const s, m, h = 1000, 60 * 1000, 60 * 60 * 1000
	switch {
	case ms%h == 0:
		return append(strconv.AppendInt(b, ms/h, 10), 'h')
	case ms%m == 0:
		return append(strconv.AppendInt(b, ms/m, 10), 'm')
	case ms%s == 0:
		return append(strconv.AppendInt(b, ms/s, 10), 's')
	}
	return append(strconv.AppendInt(b, ms, 10), "ms"...)
}

// nameCodeLen is the length of a policy name's code in keys.
const nameCodeLen = 6

// digits62 are the digits of a name's code.
const digits62 = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

// appendNameCode appends the code of a policy name, so that keys have the
// same length whatever the names: its 64-bit FNV-1a hash, mixed with
// MurmurHash3's finaliser so every bit of the name reaches every digit,
// written as six base-62 digits (about 35.7 bits).
func appendNameCode(b []byte, name string) []byte {
	h := uint64(14695981039346656037)
	for i := 0; i < len(name); i++ {
		h ^= uint64(name[i])
		h *= 1099511628211
	}
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	for range nameCodeLen {
		b = append(b, digits62[h%62])
		h /= 62
	}
	return b
}

// maxPolicyPart bounds the part of a key after the tag: ':', the algorithm,
// a window of at most 19 digits and a 2-letter unit, ':' and the name code.
const maxPolicyPart = 1 + 1 + 19 + 2 + 1 + nameCodeLen

// keys returns the Redis key of each policy's state for key:
//
//	prefix:{tag}:<algorithm><window>:<name code>
//
// e.g. "rw:{ip:203.0.113.9}:s1m:LLtnfk". The part after the tag identifies
// the policy by Algorithm, Window and Name (not its Limit, so a changed
// limit keeps the counts). All keys share the hash tag, hence one cluster
// slot.
func (s *Store) keys(key string, policies []core.Policy) []string {
	out := make([]string, len(policies))
	s.fillKeys(out, key, policies)
	return out
}

// fillKeys sets out[i] to the key of policies[i], as keys does. The keys are
// built in one buffer and cut from it: one allocation for all of them.
func (s *Store) fillKeys(out []string, key string, policies []core.Policy) {
	s.fillTaggedKeys(out, tag(key), policies)
}

// fillTaggedKeys is fillKeys for the keys whose hash tag is t.
func (s *Store) fillTaggedKeys(out []string, t string, policies []core.Policy) {
	head := len(s.prefix) + len(":{") + len(t) + len("}")
	var b strings.Builder
	b.Grow(len(policies) * (head + maxPolicyPart))
	var ends [core.MaxPolicies]int
	for i := range policies {
		p := &policies[i]
		b.WriteString(s.prefix)
		b.WriteString(":{")
		b.WriteString(t)
		b.WriteString("}:")
		var part [maxPolicyPart]byte
		id := append(part[:0], algCode(p.Algorithm))
		id = appendWindow(id, p.Window.Milliseconds())
		id = append(id, ':')
		b.Write(appendNameCode(id, p.Name))
		ends[i] = b.Len()
	}
	all := b.String()
	start := 0
	for i := range policies {
		out[i] = all[start:ends[i]]
		start = ends[i]
	}
}
