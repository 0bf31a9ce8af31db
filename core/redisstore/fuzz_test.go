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
	storetest.AddSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := redisstore.New(testredis.Standalone(t), redisstore.WithPrefix(testredis.Prefix(t)))
		require.NoError(t, err)
		storetest.CheckSequence(t, s, data)
	})
}
