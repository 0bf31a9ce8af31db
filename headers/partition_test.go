package headers_test

import (
	"encoding/base64"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/headers"
	"github.com/ratewindow/ratewindow/internal/headerfmt"
)

func TestWriterPartitionKey(t *testing.T) {
	w := headers.Writer{PartitionKey: true, PartitionSecret: []byte("secret")}
	h, set := capture()
	writeKey(w, set, allowedDecision, "203.0.113.9", t0)
	items, err := parseSFList(get(h, "RateLimit"))
	require.NoError(t, err)
	pk, ok := items[0].Param("pk")
	require.True(t, ok)
	require.IsType(t, []byte{}, pk)
	assert.Len(t, pk, 12)
	// The first 12 bytes of HMAC-SHA256("secret", key): a changed hash
	// would move every client to a new partition on the next deploy.
	assert.Equal(t, "IGWEhqIWE4XTR5mD", base64.StdEncoding.EncodeToString(pk.([]byte)))
	assert.NotContains(t, get(h, "RateLimit"), "203.0.113.9")
	pol, err := parseSFList(get(h, "RateLimit-Policy"))
	require.NoError(t, err)
	pk2, _ := pol[1].Param("pk")
	assert.Equal(t, pk, pk2, "same key, same pk on every item")

	// Stable for a key and secret; different for another key or secret.
	again, set2 := capture()
	writeKey(w, set2, allowedDecision, "203.0.113.9", t0)
	assert.Equal(t, h, again)
	other, set3 := capture()
	writeKey(w, set3, allowedDecision, "203.0.113.10", t0)
	assert.NotEqual(t, get(h, "RateLimit"), get(other, "RateLimit"))
	otherSecret, set4 := capture()
	writeKey(headers.Writer{PartitionKey: true, PartitionSecret: []byte("other")}, set4, allowedDecision, "203.0.113.9", t0)
	assert.NotEqual(t, get(h, "RateLimit"), get(otherSecret, "RateLimit"))

	// Off by default, and never without a key.
	off, set5 := capture()
	writeKey(headers.Writer{}, set5, allowedDecision, "203.0.113.9", t0)
	assert.NotContains(t, get(off, "RateLimit"), "pk=")
	assert.NotContains(t, get(off, "RateLimit-Policy"), "pk=")
	nokey, set6 := capture()
	w.Write(set6, allowedDecision, t0)
	assert.NotContains(t, get(nokey, "RateLimit"), "pk=")

	// Without a secret, a per-process one is used.
	proc, set7 := capture()
	writeKey(headers.Writer{PartitionKey: true}, set7, allowedDecision, "203.0.113.9", t0)
	items, err = parseSFList(get(proc, "RateLimit"))
	require.NoError(t, err)
	_, ok = items[0].Param("pk")
	assert.True(t, ok)
}

// writeKey writes as the middleware does, with the rate-limit key.
func writeKey(w headers.Writer, set func(name, value string), d *core.Decision, key string, now time.Time) {
	fw := headerfmt.Writer{Mode: headerfmt.Mode(w.Mode), AllPolicies: w.AllPolicies, LegacyEpoch: w.LegacyEpoch,
		PartitionKey: w.PartitionKey, PartitionSecret: w.PartitionSecret}
	fw.Write(set, nil, d, key, now)
}
