package client

import (
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// overdue starts a probe after the reset of a used-up quota, lets it go
// overdue (a negative probe wait), and hands over to a second probe that
// another request holds for. It returns the first probe, the reads it was
// sent at, the second probe and the held ticket.
func overdue(t *testing.T, s *state, at time.Time) (first chan struct{}, reads uint64, second chan struct{}, held ticket) {
	t.Helper()
	s.update(quota{remaining: 0, reset: time.Second}, now)
	first = s.reserve(at, -time.Nanosecond).probe
	require.NotNil(t, first)
	reads = s.sent()
	second = s.reserve(at, time.Minute).probe
	require.NotNil(t, second, "the overdue probe hands over")
	s.sent()
	held = s.reserve(at, time.Minute)
	require.Equal(t, second, held.hold)
	return first, reads, second, held
}

// The late answer of an overdue probe was sent after the reset, as the
// probe that replaced it was, and no response has been read since: it
// says what the reset brought as well as the newer probe's would. The
// requests holding for the newer probe follow it at once. (Were it only
// read, against a server slower than the probe wait every probe would be
// overdue before its answer came, and the key would send one request a
// probe wait for ever, whatever the answers said.)
func TestLateAnswerOfAnOverdueProbeEndsTheHold(t *testing.T) {
	at := now.Add(2 * time.Second)
	t.Run("fields", func(t *testing.T) {
		var s state
		first, reads, _, held := overdue(t, &s, at)
		s.done(quota{remaining: 3, reset: time.Second}, true, at, reads, first, false)
		require.True(t, closed(held.hold), "the late answer ends the hold")
		assert.Equal(t, ticket{}, s.reserve(at, time.Minute), "3 left, less the newer probe in flight")
		assert.Equal(t, ticket{}, s.reserve(at, time.Minute))
		assert.Equal(t, time.Second+resetMargin, s.wait(at))
	})
	t.Run("no fields", func(t *testing.T) {
		var s state
		first, reads, _, held := overdue(t, &s, at)
		s.done(quota{}, false, at, reads, first, false)
		require.True(t, closed(held.hold))
		assert.Equal(t, ticket{}, s.reserve(at, time.Minute), "no fields: go, as after any probe's")
	})
	t.Run("crossed", func(t *testing.T) {
		// The newer probe's answer came first, and a third probe is out
		// after the reset it told: the late answer is older news.
		var s state
		first, reads, second, _ := overdue(t, &s, at)
		s.done(quota{remaining: 0, reset: time.Second}, true, at, s.reads, second, false)
		later := at.Add(2 * time.Second)
		third := s.reserve(later, time.Minute).probe
		require.NotNil(t, third)
		s.sent()
		s.done(quota{remaining: 3, reset: time.Second}, true, later, reads, first, false)
		assert.False(t, closed(third), "the third probe is still awaited")
		assert.Equal(t, third, s.reserve(later, time.Minute).hold)
	})
}

// slow answers the first request with a used-up quota that resets at
// once, and every later one, with plenty left, only once the test lets it:
// a server slower than any probe wait.
type slow struct {
	mu      sync.Mutex
	gate    map[int]chan struct{} // the n-th request waits on gate[n]
	calls   int
	arrived chan int
}

func (s *slow) RoundTrip(req *http.Request) (*http.Response, error) {
	s.mu.Lock()
	s.calls++
	n := s.calls
	if s.gate[n] == nil {
		s.gate[n] = make(chan struct{})
	}
	gate := s.gate[n]
	s.mu.Unlock()
	hd := http.Header{}
	if n == 1 {
		hd.Set("RateLimit", `"p";r=0;t=0`)
	} else {
		s.arrived <- n
		select {
		case <-gate:
		case <-req.Context().Done():
			return nil, req.Context().Err()
		}
		hd.Set("RateLimit", `"p";r=50;t=60`)
	}
	return &http.Response{StatusCode: http.StatusOK, Header: hd, Body: io.NopCloser(strings.NewReader(""))}, nil
}

func (s *slow) open(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gate[n] == nil {
		s.gate[n] = make(chan struct{})
	}
	if !closed(s.gate[n]) {
		close(s.gate[n])
	}
}

// Against a server slower than the probe wait, the answer of the first
// probe, overdue and replaced, lets the requests holding for its
// replacement go, though the replacement is still unanswered.
func TestSlowServerAnswerEndsTheHold(t *testing.T) {
	srv := &slow{gate: map[int]chan struct{}{}, arrived: make(chan int, 16)}
	tr, err := New(srv, WithJitter(0))
	require.NoError(t, err)
	rt := tr.(*transport)
	rt.cfg.probeWait = time.Minute // only the test makes a probe overdue
	at := now
	var mu sync.Mutex
	rt.cfg.now = func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return at
	}
	get := func() {
		req, err := http.NewRequest("GET", "http://api.example/", nil)
		if !assert.NoError(t, err) {
			return
		}
		resp, err := tr.RoundTrip(req)
		if assert.NoError(t, err) {
			_ = resp.Body.Close()
		}
	}
	get() // used up, back at once
	mu.Lock()
	at = at.Add(time.Second) // past the reset
	mu.Unlock()

	var wg sync.WaitGroup
	defer wg.Wait()
	defer func() { // let every request still on its way end
		for n := 2; n <= 2+16; n++ {
			srv.open(n)
		}
	}()
	wg.Add(1)
	go func() { defer wg.Done(); get() }() // the first probe: request 2
	require.Equal(t, 2, <-srv.arrived)
	v, ok := rt.states.m.Load("api.example")
	require.True(t, ok)
	st := v.(*state)
	const holders = 4
	for range holders {
		wg.Add(1)
		go func() { defer wg.Done(); get() }()
	}
	// The probe goes overdue (as a second on the real clock would make
	// it), and the next request goes ahead in its place: request 3.
	st.mu.Lock()
	st.probeUntil = time.Now().Add(-time.Nanosecond)
	st.mu.Unlock()
	wg.Add(1)
	go func() { defer wg.Done(); get() }()
	require.Equal(t, 3, <-srv.arrived)

	// The first probe's answer says 50 are left: the holders go, while
	// request 3 still has no answer (its probe wait is a minute).
	srv.open(2)
	for range holders {
		select {
		case n := <-srv.arrived:
			assert.Greater(t, n, 3)
		case <-time.After(20 * time.Second):
			t.Fatal("the holders still hold for the unanswered replacement probe")
		}
	}
}
