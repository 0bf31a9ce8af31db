package keybound

import (
	"crypto/sha256"
	"encoding/hex"
	"runtime"
	"strings"
	"testing"
)

// sha is the hashed form written out: "h:" and the first 16 bytes of the
// SHA-256 of k in hex.
func sha(k string) string {
	sum := sha256.Sum256([]byte(k))
	return prefix + hex.EncodeToString(sum[:16])
}

// Every length hashes to the same form, on either side of the stack
// buffer and of the pieces a long key is written in, and a tag is hashed
// as if joined to the key: the keys in stores do not change.
func TestHashForms(t *testing.T) {
	for _, n := range []int{0, 1, 127, 128, 129, 255, 256, 257, 1023, 1024, 1025, 2048, 5000} {
		k := strings.Repeat("x", n)
		if got := Hash(k); got != sha(k) {
			t.Errorf("Hash of %d bytes = %s, want %s", n, got, sha(k))
		}
		for _, tag := range []string{"", "hdr:x-api-key:", strings.Repeat("t", 300)} {
			if got := HashTagged(tag, k); got != sha(tag+k) {
				t.Errorf("HashTagged(%d-byte tag, %d bytes) = %s, want %s", len(tag), n, got, sha(tag+k))
			}
			if got, want := BoundTagged(tag, k, MaxLen), Bound(tag+k, MaxLen); got != want {
				t.Errorf("BoundTagged(%d-byte tag, %d bytes) = %s, want %s", len(tag), n, got, want)
			}
		}
	}
	if got := BoundTagged("h", ":abc", MaxLen); got != sha("h:abc") {
		t.Errorf(`BoundTagged("h", ":abc") = %s: a key that looks hashed is hashed`, got)
	}
	if got := BoundTagged("ip:", "192.0.2.1", MaxLen); got != "ip:192.0.2.1" {
		t.Errorf("a short key is kept as is, got %s", got)
	}
}

// The middleware bounds a user's key func with Bound: a key of a megabyte
// (a header returned as the key) is hashed without a copy of it. Before,
// the whole key was copied to a []byte to be hashed, once per request.
func TestLongKeyIsHashedWithoutACopy(t *testing.T) {
	k := strings.Repeat("k", 1<<20)
	const calls = 8
	_ = Bound(k, MaxLen)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range calls {
		_ = Bound(k, MaxLen)
	}
	runtime.ReadMemStats(&after)
	if n := (after.TotalAlloc - before.TotalAlloc) / calls; n >= 64<<10 {
		t.Errorf("Bound allocated %d bytes per call for a key of 1 MiB", n)
	}
}
