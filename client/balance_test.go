package client

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every unit a request takes is given back exactly once, however the
// request ends: answered, refused and retried, failed in the base,
// panicked in the base, or cancelled while it waits its turn. A unit kept
// would count against every quota the key is told from then on, and
// throttle the client for ever.
func TestEveryTakenUnitIsGivenBack(t *testing.T) {
	boom := errors.New("boom")
	var step string
	tr, err := New(rtFunc(func(*http.Request) (*http.Response, error) {
		h := http.Header{}
		switch step {
		case "fail":
			return nil, boom
		case "panic":
			panic("base broke")
		case "refuse":
			step = "ok"
			h.Set("Retry-After", "1")
			return &http.Response{StatusCode: http.StatusTooManyRequests, Header: h, Body: http.NoBody}, nil
		case "spent":
			h.Set("RateLimit", `"p";r=0;t=5`)
		default:
			h.Set("RateLimit", `"p";r=5;t=5`)
		}
		return &http.Response{StatusCode: http.StatusOK, Header: h, Body: http.NoBody}, nil
	}), WithJitter(0))
	require.NoError(t, err)
	at := now
	cancelWaits := false
	cfg := &tr.(*transport).cfg
	cfg.now = func() time.Time { return at }
	cfg.sleep = func(_ context.Context, d time.Duration) error {
		if cancelWaits {
			return context.Canceled
		}
		at = at.Add(d)
		return nil
	}
	send := func(s string) {
		step = s
		req, err := http.NewRequest("GET", "http://a.example/", nil)
		require.NoError(t, err)
		func() {
			defer func() { _ = recover() }()
			if resp, err := tr.RoundTrip(req); err == nil {
				_ = resp.Body.Close()
			}
		}()
	}
	for _, s := range []string{"ok", "fail", "ok", "panic", "refuse", "ok", "spent"} {
		send(s)
	}
	cancelWaits = true
	send("ok") // waits for the spent quota's reset, and is cancelled
	cancelWaits = false
	send("ok") // after the reset: the probe
	st, ok := tr.(*transport).states.m.Load("a.example")
	require.True(t, ok)
	s := st.(*state)
	s.mu.Lock()
	defer s.mu.Unlock()
	assert.Zero(t, s.inflight, "requests counted in flight")
	assert.Zero(t, s.taken, "units taken and not sent")
	assert.Equal(t, int64(5), s.remaining, "the quota told by the last answer")
	assert.Nil(t, s.probe)
}
