package client

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A burst of new hosts that then stops (a crawl that ends, a webhook
// fan-out) is forgotten once idle, though no new host comes to trigger a
// sweep: the transport's memory goes back to what its recent hosts need.
func TestStatesForgetABurstWithoutNewKeys(t *testing.T) {
	var ss states
	at := now
	for i := range 50_000 {
		ss.use("burst-"+strconv.Itoa(i), at).update(quota{remaining: 5, reset: time.Second}, at)
	}
	// From now on only two known hosts are used, for a few minutes.
	for range 3 * 60 * 10 {
		at = at.Add(100 * time.Millisecond)
		ss.use("burst-1", at)
		ss.use("burst-2", at)
	}
	assert.Less(t, countStates(&ss), minSweepAt, "the idle hosts of the burst are forgotten")
	assert.Equal(t, int64(countStates(&ss)), ss.size.Load())
}

// Likewise when what follows the burst is a trickle of new hosts (a
// crawler that slows down): far fewer than would double the map, each
// new, none seen before. The burst is forgotten all the same.
func TestStatesForgetABurstFollowedByFewNewKeys(t *testing.T) {
	var ss states
	at := now
	for i := range 50_000 {
		ss.use("burst-"+strconv.Itoa(i), at).update(quota{remaining: 5, reset: time.Second}, at)
	}
	// From now on one new host every ten seconds, for three minutes.
	for i := range 3 * 6 {
		at = at.Add(10 * time.Second)
		ss.use("trickle-"+strconv.Itoa(i), at)
	}
	assert.Less(t, countStates(&ss), minSweepAt, "the idle hosts of the burst are forgotten")
	assert.Equal(t, int64(countStates(&ss)), ss.size.Load())
}

// The sweep never drops a state a request holds, however long it holds
// it; released, the state goes like any other, and a request that comes
// for it after that takes a new one.
func TestSweepSparesHeldStates(t *testing.T) {
	var ss states
	s := ss.get("held", now)
	s.block(now, time.Minute)
	at := now.Add(2 * staleAfter)
	for i := range 2 * minSweepAt {
		ss.use("a-"+strconv.Itoa(i), at)
	}
	v, ok := ss.m.Load("held")
	require.True(t, ok, "held for two hours, still there")
	require.Same(t, s, v)

	s.release(at)
	at = at.Add(2 * staleAfter)
	for i := range 2 * minSweepAt {
		ss.use("b-"+strconv.Itoa(i), at)
	}
	_, ok = ss.m.Load("held")
	require.False(t, ok, "released, it is forgotten")
	require.False(t, s.hold(at), "a dropped state is not held again")
	assert.NotSame(t, s, ss.use("held", at))
	assert.Equal(t, int64(countStates(&ss)), ss.size.Load())
}
