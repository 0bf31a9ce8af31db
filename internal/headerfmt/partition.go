package headerfmt

import (
	"encoding/base64"

	"github.com/ratewindow/ratewindow/internal/keyhash"
)

// pkBytes is how many bytes of the keyed hash pk carries (96 bits).
const pkBytes = 12

// pkEncodedLen is the length of pk as an sf-binary: ":" base64 ":".
const pkEncodedLen = 2 + (pkBytes+2)/3*4

// processSecret keys pk when Writer.PartitionSecret is empty.
var processSecret = keyhash.NewSecret()

// appendPartitionKey appends pk for key as an sf-binary: a keyed hash of
// the key under secret (see keyhash.Sum), truncated.
func appendPartitionKey(b []byte, secret []byte, key string) []byte {
	if len(secret) == 0 {
		secret = processSecret
	}
	sum := keyhash.Sum(secret, key)
	b = append(b, ':')
	b = base64.StdEncoding.AppendEncode(b, sum[:pkBytes])
	return append(b, ':')
}
