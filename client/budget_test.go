package client

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A paced request waits at most MaxWait in all, as the server asked, not
// MaxWait per wait: when other requests with its key take each reset's
// quota while it waits (here one request sent during each of its waits,
// as by another goroutine), it is not held round after round for ever,
// but sent once another wait would take it past MaxWait.
func TestPacingWaitsAtMostMaxWaitInAll(t *testing.T) {
	tr, err := New(rtFunc(func(req *http.Request) (*http.Response, error) {
		h := http.Header{}
		h.Set("RateLimit", `"p";r=0;t=10`) // used up; back in 10 s
		return &http.Response{StatusCode: http.StatusOK, Header: h, Body: http.NoBody, Request: req}, nil
	}), WithJitter(0), WithMaxWait(15*time.Second))
	require.NoError(t, err)
	send := func() {
		req, err := http.NewRequest("GET", "http://api.example/", nil)
		require.NoError(t, err)
		_, err = tr.RoundTrip(req)
		require.NoError(t, err)
	}
	at := now
	var waits []time.Duration
	others := 0
	cfg := &tr.(*transport).cfg
	cfg.now = func() time.Time { return at }
	cfg.sleep = func(_ context.Context, d time.Duration) error {
		waits = append(waits, d)
		at = at.Add(d)
		if others < 10 {
			others++
			send() // another request takes the quota the reset brought
		}
		return nil
	}
	send() // learns that the quota is used up
	send()
	var waited time.Duration
	for _, w := range waits {
		waited += w
	}
	assert.LessOrEqual(t, waited, 15*time.Second+resetMargin, "waits %v", waits)
	assert.Equal(t, []time.Duration{10*time.Second + resetMargin}, waits, "one wait; the next would end past MaxWait")
}
