package keyhash_test

import (
	"encoding/hex"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/internal/keyhash"
)

// Sum and Hash give the same output from one release to the next: an
// operator matches a client's hash across logs and top-keys reports
// written before and after a deploy (under a configured secret), and the
// RateLimit fields' partition key, taken from Sum, must not change for a
// key under the same secret. The expected values are HMAC-SHA256 as
// computed by another implementation, for empty, short, binary and long
// keys and secrets, including one longer than the hash's block.
func TestSumAndHashAreStable(t *testing.T) {
	block := make([]byte, 32)
	for i := range block {
		block[i] = byte(i)
	}
	for _, tc := range []struct {
		secret []byte
		key    string
		sum    string
	}{
		{[]byte("secret"), "", "f9e66e179b6747ae54108f82f8ade8b3c25d76fd30afde6c395822c530196169"},
		{[]byte("secret"), "203.0.113.9", "20658486a2161385d347998309945c99b3d79c5ac2972e88f1026ff1c632cdc6"},
		{[]byte("secret"), "2001:db8::1", "4d808f77f5e510390ace2d63c383570f89b0902d56b9facdf41c5ab74411bbe1"},
		{[]byte("secret"), "user:42|route:/api", "a8c1e3a3b6cd38f89425bc9840f1ca6d07ff55e94096182db8fc6563c88135d3"},
		{[]byte("secret"), "\xff\x00\xfe", "c40a5bda20326fc107e1faf1618aef9545eb5f906649ed99ae03abfd1c2c7d11"},
		{[]byte("secret"), strings.Repeat("k", 10000), "0391cd6a95459dd33680c616fad4ffb8273ec44fadf987f1c13e3b573fcbd488"},
		{nil, "", "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad"},
		{nil, "203.0.113.9", "aeba89393d27ca559197139d3ae4b0ffea4da58fb2549c239e3b4c7f5ac3c450"},
		{block, "2001:db8::1", "c1b0edb4c1ffb477edb03ec3a4518b21aa3128f2b13cfc9fbd6e3da8ace3d344"},
		{block, strings.Repeat("k", 10000), "13f97ebec384cdb15935b17961ce79cb51ef615fcf7642b2331fafe81da75277"},
		{[]byte(strings.Repeat("s", 100)), "203.0.113.9", "973399156a6359753c4c536b332c4a9db466ca37cc89c6b661461d011c517004"},
	} {
		name := tc.key
		if len(name) > 20 {
			name = name[:20] + "…"
		}
		sum := keyhash.Sum(tc.secret, tc.key)
		require.Equal(t, tc.sum, hex.EncodeToString(sum[:]), "Sum(%q, %q)", tc.secret, name)
		assert.Equal(t, tc.sum[:16], keyhash.Hash(tc.secret, tc.key), "Hash(%q, %q)", tc.secret, name)
	}
}

// NewSecret returns 32 random bytes, a new value each call.
func TestNewSecret(t *testing.T) {
	a, b := keyhash.NewSecret(), keyhash.NewSecret()
	assert.Len(t, a, 32)
	assert.Len(t, b, 32)
	assert.NotEqual(t, a, b)
}
