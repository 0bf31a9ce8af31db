package keyfuncs_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/keyfuncs"
)

// bytesPerCall is the heap allocated by one call of f, on average over a
// few calls (the first, which may fill caches, not counted).
func bytesPerCall(f func()) uint64 {
	const calls = 8
	f()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range calls {
		f()
	}
	runtime.ReadMemStats(&after)
	return (after.TotalAlloc - before.TotalAlloc) / calls
}

// hashedKey is the hashed form of the key k: "h:" and the first 16 bytes
// of its SHA-256 in hex.
func hashedKey(k string) string {
	sum := sha256.Sum256([]byte(k))
	return "h:" + hex.EncodeToString(sum[:16])
}

// A key built from what a client sends (a header of a megabyte, which
// net/http accepts by default, or a long URL path) is hashed without being
// copied: before, each strategy built the whole long key and then copied
// it again to hash it, two megabytes of garbage per request for one
// megabyte the client sent. The key is the same hash as before.
func TestLongValuesAreHashedWithoutCopies(t *testing.T) {
	huge := strings.Repeat("k", 1<<20)
	type ctxKey struct{}
	ctx := context.WithValue(context.Background(), ctxKey{}, huge)
	withCtx := req("192.0.2.1:5")
	withCtx.Ctx = ctx
	longPath := req("192.0.2.1:5")
	longPath.PathValue = "/" + huge
	ctxNS := "ctx:github.com/ratewindow/ratewindow/keyfuncs_test.ctxKey:"
	for _, c := range []struct {
		name string
		f    keyfuncs.KeyFunc
		r    keyfuncs.Request
		key  string // the key before hashing
	}{
		{"Header", keyfuncs.Header("X-API-Key", nil), req("192.0.2.1:5", "X-API-Key", huge), "hdr:x-api-key:" + huge},
		// A host in lower case costs no copy, its port cut first.
		{"Host", keyfuncs.Header("Host", nil), req("192.0.2.1:5", "Host", huge+":8080"), "hdr:host:" + huge},
		{"BearerToken", keyfuncs.BearerToken(nil), req("192.0.2.1:5", "Authorization", "Bearer "+huge), "bearer:" + huge},
		{"Prefix", keyfuncs.Prefix("p", func(keyfuncs.Request) (string, error) { return huge, nil }), req("192.0.2.1:5"), "p:" + huge},
		{"FromContext", keyfuncs.FromContext(ctxKey{}, nil), withCtx, ctxNS + huge},
		{"Route", keyfuncs.Route, longPath, "route:GET /" + huge},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.f(c.r)
			require.NoError(t, err)
			assert.Equal(t, hashedKey(c.key), got, "the key is the hash of the whole key, as before")
			n := bytesPerCall(func() { _, _ = c.f(c.r) })
			assert.Less(t, n, uint64(64<<10), "%s allocated %d bytes per call for a value of 1 MiB", c.name, n)
		})
	}
}
