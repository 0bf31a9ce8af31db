package client

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// A burst of new hosts that then stops (a crawl that ends, a webhook
// fan-out) is forgotten once idle, though no new host comes to trigger a
// sweep: the transport's memory goes back to what its recent hosts need.
func TestStatesForgetABurstWithoutNewKeys(t *testing.T) {
	var ss states
	at := now
	for i := range 50_000 {
		ss.get("burst-"+strconv.Itoa(i), at).update(quota{remaining: 5, reset: time.Second}, at)
	}
	// From now on only two known hosts are used, for a few minutes.
	for range 3 * 60 * 10 {
		at = at.Add(100 * time.Millisecond)
		ss.get("burst-1", at)
		ss.get("burst-2", at)
	}
	assert.Less(t, countStates(&ss), minSweepAt, "the idle hosts of the burst are forgotten")
	assert.Equal(t, int64(countStates(&ss)), ss.size.Load())
}
