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

// keys returns the Redis key of each policy's state for key:
//
//	prefix:{tag}:<algorithm><window ms>:<policy name>
//
// e.g. "ratewindow:{203.0.113.9}:s60000:100-per-1m". The part after the tag
// holds the policy's Name, Window and Algorithm (not its Limit, so a changed
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
	t := tag(key)
	head := len(s.prefix) + len(":{") + len(t) + len("}:")
	size := 0
	for i := range policies {
		size += head + 1 + 20 + 1 + len(policies[i].Name)
	}
	var b strings.Builder
	b.Grow(size)
	var ends [core.MaxPolicies]int
	for i := range policies {
		p := &policies[i]
		b.WriteString(s.prefix)
		b.WriteString(":{")
		b.WriteString(t)
		b.WriteString("}:")
		b.WriteByte(algCode(p.Algorithm))
		var digits [20]byte
		b.Write(strconv.AppendInt(digits[:0], p.Window.Milliseconds(), 10))
		b.WriteByte(':')
		b.WriteString(p.Name)
		ends[i] = b.Len()
	}
	all := b.String()
	start := 0
	for i := range policies {
		out[i] = all[start:ends[i]]
		start = ends[i]
	}
}
