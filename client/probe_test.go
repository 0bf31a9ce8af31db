package client

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// closed reports whether c is closed.
func closed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// After the reset of a used-up quota one request goes first; the others
// hold until its answer, and then follow what it said.
func TestProbeAfterTheReset(t *testing.T) {
	var s state
	s.update(quota{remaining: 0, reset: time.Second}, now)
	at := now.Add(time.Second + resetMargin)
	probe := s.reserve(at, time.Minute)
	require.NotNil(t, probe.probe)
	reads := s.sent()
	held := s.reserve(at, time.Minute)
	require.Equal(t, probe.probe, held.hold, "the others hold for the probe")
	require.Zero(t, held.wait)
	s.done(quota{remaining: 1, reset: time.Second}, true, at, reads, probe.probe, false)
	require.True(t, closed(held.hold), "the answer lets them go")
	assert.Equal(t, ticket{}, s.reserve(at, time.Minute), "one unit")
	assert.Equal(t, time.Second+resetMargin, s.wait(at), "then the new reset")
}

// Units left at a reset are still there: they are taken without a probe.
func TestUnitsLeftAtTheResetAreTaken(t *testing.T) {
	var s state
	s.update(quota{remaining: 2, reset: time.Second}, now)
	at := now.Add(2 * time.Second)
	assert.Equal(t, ticket{}, s.reserve(at, time.Minute))
	assert.Equal(t, ticket{}, s.reserve(at, time.Minute))
	assert.NotNil(t, s.reserve(at, time.Minute).probe)
}

// A probe that fails hands over to the next request; one whose answer
// says nothing of the limit lets everyone go, as before any field was
// read.
func TestProbeFailsOrSaysNothing(t *testing.T) {
	var s state
	s.update(quota{remaining: 0, reset: time.Second}, now)
	at := now.Add(2 * time.Second)
	first := s.reserve(at, time.Minute)
	s.sent()
	held := s.reserve(at, time.Minute)
	s.failed(first.probe)
	require.True(t, closed(held.hold))
	second := s.reserve(at, time.Minute)
	require.NotNil(t, second.probe, "the next request goes ahead in the failed one's place")
	require.NotEqual(t, first.probe, second.probe)
	require.NotNil(t, s.reserve(at, time.Minute).hold)

	s.done(quota{}, false, at, s.sent(), second.probe, false)
	assert.Equal(t, ticket{}, s.reserve(at, time.Minute), "no fields: go")
	assert.Equal(t, ticket{}, s.reserve(at, time.Minute))
}

// Requests hold for an overdue probe no longer, but do not all go at
// once either: the next one goes ahead in its place, as after a probe that
// failed, and the others hold for that one in turn.
func TestOverdueProbeHandsOver(t *testing.T) {
	var s state
	s.update(quota{remaining: 0, reset: time.Second}, now)
	at := now.Add(2 * time.Second)
	probe := s.reserve(at, time.Millisecond)
	require.NotNil(t, probe.probe)
	reads := s.sent()
	time.Sleep(5 * time.Millisecond) // past the probe wait, on the real clock the holds use
	next := s.reserve(at, time.Minute)
	require.NotNil(t, next.probe, "the next request goes ahead in the overdue one's place")
	assert.True(t, closed(probe.probe), "the requests holding for the overdue one ask again")
	held := s.reserve(at, time.Minute)
	assert.Equal(t, next.probe, held.hold, "and the others hold for the new one")
	// The late answer ends the hold for the new one too (see
	// TestLateAnswerOfAnOverdueProbeEndsTheHold), and the new one's
	// answer, after it, closes no channel twice.
	s.done(quota{remaining: 3, reset: time.Second}, true, at, reads, probe.probe, false)
	assert.True(t, closed(next.probe))
	s.done(quota{remaining: 3, reset: time.Second}, true, at, s.sent(), next.probe, false)
	assert.Equal(t, ticket{}, s.reserve(at, time.Minute))
}

// A hold that ends because the probe is overdue asks again (and reserve
// then sends one request in the probe's place); one cut short by MaxWait
// or by the context's deadline sends the request.
func TestHoldAsksAgainWhenTheProbeIsOverdue(t *testing.T) {
	tr, err := New(nil, WithMaxWait(time.Minute))
	require.NoError(t, err)
	rt := tr.(*transport)
	again, err := rt.hold(context.Background(), ticket{hold: make(chan struct{}), until: time.Now().Add(10 * time.Millisecond)})
	require.NoError(t, err)
	assert.True(t, again, "overdue: ask again")

	rt.cfg.maxWait = 10 * time.Millisecond
	again, err = rt.hold(context.Background(), ticket{hold: make(chan struct{}), until: time.Now().Add(time.Minute)})
	require.NoError(t, err)
	assert.False(t, again, "MaxWait: send")

	rt.cfg.maxWait = time.Minute
	// Half of a second is well before the deadline itself: the hold ends
	// by its own timer, not by the context.
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	again, err = rt.hold(ctx, ticket{hold: make(chan struct{}), until: time.Now().Add(time.Minute)})
	require.NoError(t, err)
	assert.False(t, again, "half the time to the deadline: send")
}

// After a Retry-After with no fields, the first request after the block
// goes ahead of the others.
func TestProbeAfterABlock(t *testing.T) {
	var s state
	s.block(now, time.Second)
	assert.Equal(t, time.Second, s.wait(now))
	tk := s.reserve(now.Add(time.Second), time.Minute)
	require.NotNil(t, tk.probe)
	require.NotNil(t, s.reserve(now.Add(time.Second), time.Minute).hold)
}

// hanging answers the first request with a used-up quota that resets at
// once, then holds the next one (the probe) until released, and answers
// every other one at once.
type hanging struct {
	calls   atomic.Int64
	release chan struct{}
	probing chan struct{}
}

func (h *hanging) RoundTrip(req *http.Request) (*http.Response, error) {
	hd := http.Header{}
	switch h.calls.Add(1) {
	case 1:
		hd.Set("RateLimit", `"p";r=0;t=0`)
	case 2:
		close(h.probing)
		select {
		case <-h.release:
		case <-req.Context().Done():
			return nil, req.Context().Err()
		}
		hd.Set("RateLimit", `"p";r=9;t=9`)
	}
	return &http.Response{StatusCode: http.StatusOK, Header: hd, Body: io.NopCloser(strings.NewReader(""))}, nil
}

// probing starts a transport over a hanging base and sends its probe,
// which hangs; it returns once the probe is on its way.
func probing(t *testing.T, probeWait time.Duration) (http.RoundTripper, *hanging, *sync.WaitGroup) {
	h := &hanging{release: make(chan struct{}), probing: make(chan struct{})}
	tr, err := New(h, WithJitter(0))
	require.NoError(t, err)
	tr.(*transport).cfg.probeWait = probeWait
	get := func() {
		req, err := http.NewRequest("GET", "http://api.example/", nil)
		require.NoError(t, err)
		resp, err := tr.RoundTrip(req)
		require.NoError(t, err)
		_ = resp.Body.Close()
	}
	get()
	time.Sleep(5 * time.Millisecond) // past the reset and its margin
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		get()
	}()
	<-h.probing
	t.Cleanup(func() {
		close(h.release)
		wg.Wait()
	})
	return tr, h, &wg
}

// A probe that hangs holds the others back for the probe wait at most.
func TestHungProbeHoldsOthersBriefly(t *testing.T) {
	tr, h, _ := probing(t, 200*time.Millisecond)
	start := time.Now()
	req, err := http.NewRequest("GET", "http://api.example/", nil)
	require.NoError(t, err)
	resp, err := tr.RoundTrip(req)
	require.NoError(t, err)
	_ = resp.Body.Close()
	elapsed := time.Since(start)
	assert.GreaterOrEqual(t, elapsed, 150*time.Millisecond, "it held for the probe")
	assert.Less(t, elapsed, 5*time.Second)
	assert.Equal(t, int64(3), h.calls.Load())
}

// A request holding for a probe keeps half of the time left before its
// deadline to be sent in, and a cancelled one stops holding at once.
func TestHoldHonoursTheContext(t *testing.T) {
	tr, h, _ := probing(t, time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 400*time.Millisecond)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", "http://api.example/", nil)
	require.NoError(t, err)
	resp, err := tr.RoundTrip(req)
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.NoError(t, ctx.Err(), "sent with time to spare")
	assert.Equal(t, int64(3), h.calls.Load())

	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	req, err = http.NewRequestWithContext(ctx, "GET", "http://api.example/", nil)
	require.NoError(t, err)
	_, err = tr.RoundTrip(req)
	assert.True(t, errors.Is(err, context.Canceled), "%v", err)
	assert.Equal(t, int64(3), h.calls.Load(), "not sent")
}

// MaxWait bounds a hold as it bounds any wait.
func TestHoldHonoursMaxWait(t *testing.T) {
	tr, h, _ := probing(t, time.Minute)
	tr.(*transport).cfg.maxWait = 100 * time.Millisecond
	start := time.Now()
	req, err := http.NewRequest("GET", "http://api.example/", nil)
	require.NoError(t, err)
	resp, err := tr.RoundTrip(req)
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Less(t, time.Since(start), 10*time.Second)
	assert.Equal(t, int64(3), h.calls.Load())
}
