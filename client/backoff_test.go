package client

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A refusal that says nothing of when to come back (no Retry-After, no
// reset) holds the key back, not just the refused request: the key's next
// request waits half a second, then one second after a second such refusal
// in a row, doubling up to the limit (MaxWait here, as it is shorter than
// thirty seconds); a response that is not a refusal ends the run.
func TestBareRefusalsBackTheKeyOff(t *testing.T) {
	statuses := []int{429, 503, 429, 429, 429, 429, 200, 200, 429, 200}
	var calls int
	tr, err := New(rtFunc(func(req *http.Request) (*http.Response, error) {
		status := statuses[calls]
		calls++
		return &http.Response{StatusCode: status, Header: http.Header{}, Body: http.NoBody, Request: req}, nil
	}), WithJitter(0), WithMaxRetries(0), WithMaxWait(5*time.Second))
	require.NoError(t, err)
	waits := fakeTime(tr)
	var got [][]time.Duration
	for range statuses {
		before := len(*waits)
		req, err := http.NewRequest("GET", "http://api.example/", nil)
		require.NoError(t, err)
		_, err = tr.RoundTrip(req)
		require.NoError(t, err)
		got = append(got, append([]time.Duration(nil), (*waits)[before:]...))
	}
	s := time.Second
	assert.Equal(t, [][]time.Duration{
		nil,     // the first request knows nothing
		{s / 2}, // after one refusal
		{s},     // two in a row
		{2 * s}, // ...
		{4 * s}, //
		{5 * s}, // at most MaxWait
		{5 * s}, //
		nil,     // an answer ends the run
		nil,     //
		{s / 2}, // a new run starts from half a second
	}, got)
}

// After a refusal that says nothing, the requests that held for the probe
// it answered wait out the back-off, and then one goes first again: the
// refusal does not let them all go at once into more refusals. The same
// holds after a refusal with Retry-After and no fields.
func TestRefusedProbeKeepsTheOthersHeld(t *testing.T) {
	for name, refuse := range map[string]func(s *state, at time.Time) time.Duration{
		"no Retry-After": func(s *state, at time.Time) time.Duration { return s.backOff(at, time.Minute) },
		"Retry-After": func(s *state, at time.Time) time.Duration {
			s.block(at, time.Second)
			return time.Second
		},
	} {
		t.Run(name, func(t *testing.T) {
			var s state
			s.update(quota{remaining: 0, reset: 0}, now) // used up, back at once
			at := now.Add(resetMargin)
			probe := s.reserve(at, time.Minute)
			require.NotNil(t, probe.probe)
			reads := s.sent()
			held := s.reserve(at, time.Minute)
			require.NotNil(t, held.hold)

			d := refuse(&s, at)
			s.done(quota{}, false, at, reads, probe.probe, true)
			require.True(t, closed(held.hold), "the answer ends the hold")
			assert.Equal(t, d, s.wait(at), "the held requests wait out the refusal")
			next := s.reserve(at.Add(d), time.Minute)
			require.NotNil(t, next.probe, "then one goes first")
			assert.NotNil(t, s.reserve(at.Add(d), time.Minute).hold, "and the others hold for it")
		})
	}
}

// A refusal of a request that was sent before the key was blocked crossed
// the refusal that blocked it: it waits out the block, and does not double
// the back-off.
func TestCrossedRefusalsDoNotDoubleTheBackOff(t *testing.T) {
	var s state
	assert.Equal(t, backoffBase, s.backOff(now, time.Minute))
	for range 5 {
		assert.Equal(t, backoffBase-time.Millisecond, s.backOff(now.Add(time.Millisecond), time.Minute))
	}
	assert.Equal(t, 2*backoffBase, s.backOff(now.Add(backoffBase), time.Minute), "the next refusal after the block doubles it")
}

// MaxWait bounds the back-off as it bounds any wait: a back-off longer
// than MaxWait is not waited for, and the refusal is returned. It does not
// shorten the back-off, which would send the retries into a server that
// keeps refusing at MaxWait's pace (every millisecond, for a MaxWait of
// one) instead of backing off. Before the back-off was shared by the key,
// a single request saw half a second, one, two, and stopped at the first
// longer than MaxWait; it still does.
func TestMaxWaitDoesNotShortenTheBackOff(t *testing.T) {
	s := time.Second
	for _, tt := range []struct {
		maxWait time.Duration
		waits   []time.Duration
	}{
		{time.Millisecond, nil},
		{s, []time.Duration{s / 2, s}},
		{time.Minute, []time.Duration{s / 2, s, 2 * s}},
	} {
		var calls int
		tr, err := New(rtFunc(func(req *http.Request) (*http.Response, error) {
			calls++
			return &http.Response{StatusCode: http.StatusTooManyRequests, Header: http.Header{}, Body: http.NoBody, Request: req}, nil
		}), WithJitter(0), WithMaxWait(tt.maxWait))
		require.NoError(t, err)
		waits := fakeTime(tr)
		req, err := http.NewRequest("GET", "http://api.example/", nil)
		require.NoError(t, err)
		resp, err := tr.RoundTrip(req)
		require.NoError(t, err)
		assert.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
		assert.Equal(t, tt.waits, *waits, "MaxWait %v", tt.maxWait)
		assert.Equal(t, len(tt.waits)+1, calls, "MaxWait %v", tt.maxWait)
	}
}
