package redisstore_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core/redisstore"
	"github.com/ratewindow/ratewindow/core/storetest"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// FuzzStore replays byte-encoded call sequences on Redis and on the
// conformance suite's oracle (the same target the memory store has); the
// seeds run as ordinary tests against the test script's standalone Redis.
func FuzzStore(f *testing.F) {
	f.Add([]byte{0})
	f.Add([]byte{0, 0, 3, 9, 10, 0, 1, 10, 0, 2, 10, 0, 3, 200, 1, 1, 250, 2, 0, 0, 0})
	f.Add([]byte{2, 1, 7, 20, 2, 2, 5, 0, 7, 39, 5, 64, 1, 5, 128, 2, 5, 192, 0, 63, 1, 1})
	f.Add([]byte("the sliding log, the fixed window and the sliding counter all agree with the oracle"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := redisstore.New(testredis.Standalone(t), redisstore.WithPrefix(testredis.Prefix(t)))
		require.NoError(t, err)
		storetest.CheckSequence(t, s, data)
	})
}
