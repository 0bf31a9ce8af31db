package client

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A unit taken by a request that is about to be sent counts as in flight
// from the moment it is taken: a response that comes back before that
// request is on its way does not give its unit back. (Two requests took
// the last two units; the first one's answer, "1 left", came back before
// the second was sent, and a third request went out into a 429.)
func TestTakenUnitCountsBeforeItIsSent(t *testing.T) {
	at := now
	var s state
	s.update(quota{remaining: 2, reset: time.Second}, at)
	require.Equal(t, ticket{}, s.reserve(at, time.Minute), "the first unit")
	reads := s.sent()
	require.Equal(t, ticket{}, s.reserve(at, time.Minute), "the second unit, not sent yet")
	s.done(quota{remaining: 1, reset: time.Second}, true, at, reads, nil, false)
	assert.Positive(t, s.reserve(at, time.Minute).wait, "no unit left: the second request took it")
	s.sent() // the second request goes out
	s.done(quota{remaining: 0, reset: time.Second}, true, at, reads, nil, false)
	assert.Positive(t, s.reserve(at, time.Minute).wait)
	// Every unit taken has been sent and answered: none is counted
	// against a fresh quota.
	later := at.Add(2 * time.Second)
	s.update(quota{remaining: 3, reset: time.Second}, later)
	for i := range 3 {
		require.Equal(t, ticket{}, s.reserve(later, time.Minute), "unit %d", i)
		s.sent()
	}
	assert.Positive(t, s.reserve(later, time.Minute).wait)
}
