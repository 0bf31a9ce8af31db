package headerfmt

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
)

// pkBytes is how many bytes of the keyed hash pk carries (96 bits).
const pkBytes = 12

// pkEncodedLen is the length of pk as an sf-binary: ":" base64 ":".
const pkEncodedLen = 2 + (pkBytes+2)/3*4

// processSecret keys pk when Writer.PartitionSecret is empty.
var processSecret = func() []byte {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	return b
}()

// appendPartitionKey appends pk for key as an sf-binary: an HMAC-SHA256 of
// the key under secret, truncated. A plain hash would not do: the IPv4
// space is small enough to reverse one by brute force.
func appendPartitionKey(b []byte, secret []byte, key string) []byte {
	if len(secret) == 0 {
		secret = processSecret
	}
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(key))
	var sum [sha256.Size]byte
	m.Sum(sum[:0])
	b = append(b, ':')
	b = base64.StdEncoding.AppendEncode(b, sum[:pkBytes])
	return append(b, ':')
}
