package redisstore_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core/internal/oracle"
	"github.com/ratewindow/ratewindow/core/redisstore"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// FuzzStore replays byte-encoded call sequences on Redis and on the
// conformance suite's oracle (the same target the memory store has); the
// seeds run as ordinary tests against the test script's standalone Redis.
// The sequences carry their own instants: the store decides on them
// (WithClientTime).
func FuzzStore(f *testing.F) {
	oracle.AddSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := redisstore.New(testredis.Standalone(t), redisstore.WithPrefix(testredis.Prefix(t)), redisstore.WithClientTime())
		require.NoError(t, err)
		oracle.CheckSequence(t, s, data)
	})
}
