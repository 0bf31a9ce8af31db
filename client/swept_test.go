package client

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/internal/clocktest"
)

// slowKey is a transport on a fake clock over a base that answers at
// once: a request to api.example with the fields of answers, in turn,
// unless it is to be held (see holdFirst), any other host's with none.
type slowKey struct {
	t       *testing.T
	tr      *transport
	clock   *clocktest.Clock
	entered chan struct{}
	release chan string // the fields of the held request's answer

	mu          sync.Mutex
	hold        bool // hold the next api.example request until released
	answers     []string
	sentAt      []time.Time // when each api.example request reached the base
	duringSleep func()      // run once, at the end of the next wait
}

func newSlowKey(t *testing.T, answers ...string) *slowKey {
	k := &slowKey{t: t, clock: clocktest.New(now), entered: make(chan struct{}), release: make(chan string), answers: answers}
	rt, err := New(rtFunc(k.roundTrip), WithJitter(0))
	require.NoError(t, err)
	k.tr = rt.(*transport)
	k.tr.cfg.now = k.clock.Now
	k.tr.cfg.sleep = func(_ context.Context, d time.Duration) error {
		k.clock.Advance(d)
		k.mu.Lock()
		f := k.duringSleep
		k.duringSleep = nil
		k.mu.Unlock()
		if f != nil {
			f()
		}
		return nil
	}
	return k
}

func (k *slowKey) roundTrip(req *http.Request) (*http.Response, error) {
	hd := http.Header{}
	if req.URL.Host == "api.example" {
		k.mu.Lock()
		held := k.hold
		k.hold = false
		k.sentAt = append(k.sentAt, k.clock.Now())
		var fields string
		if !held {
			fields, k.answers = k.answers[0], k.answers[1:]
		}
		k.mu.Unlock()
		if held {
			close(k.entered)
			fields = <-k.release
		}
		hd.Set("RateLimit", fields)
	}
	return &http.Response{StatusCode: http.StatusOK, Header: hd, Body: io.NopCloser(strings.NewReader(""))}, nil
}

func (k *slowKey) get(host string) {
	req, err := http.NewRequest("GET", "http://"+host+"/", nil)
	require.NoError(k.t, err)
	resp, err := k.tr.RoundTrip(req)
	require.NoError(k.t, err)
	_ = resp.Body.Close()
}

// holdOne sends a request to api.example, held in the base until a value
// is sent on k.release. It returns once the base has the request, with
// the channel the held request ends on.
func (k *slowKey) holdOne() chan struct{} {
	k.mu.Lock()
	k.hold = true
	k.mu.Unlock()
	done := make(chan struct{})
	go func() {
		defer close(done)
		k.get("api.example")
	}()
	<-k.entered
	return done
}

// holdFirst holds a request (see holdOne) and lets a minute and more pass
// while the transport sees many other hosts, enough for a sweep. It
// returns the channel the held request ends on.
func (k *slowKey) holdFirst() chan struct{} {
	done := k.holdOne()
	k.clock.Advance(idleAfter + time.Second)
	k.others()
	return done
}

// others sends requests to enough other hosts for a sweep.
func (k *slowKey) others() {
	for i := range 2 * minSweepAt {
		k.get("h" + strconv.Itoa(i) + ".example")
	}
}

// sent returns when the api.example requests reached the base.
func (k *slowKey) sent() []time.Time {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]time.Time(nil), k.sentAt...)
}

// A request in flight for over a minute, or that waited that long for
// its turn, keeps its key's state: the sweep that forgets idle keys does
// not take it away under that request. Its answer is then heard by the
// requests that follow, and it still counts against the quota of those
// answered before it.
func TestSweepKeepsTheStateOfARequestInFlight(t *testing.T) {
	t.Run("its answer holds the next request", func(t *testing.T) {
		k := newSlowKey(t, `"p";r=9;t=60`)
		done := k.holdFirst()
		k.release <- `"p";r=0;t=30` // used up for 30 s
		<-done
		answered := k.clock.Now()
		k.get("api.example")
		sent := k.sent()
		require.Len(t, sent, 2)
		assert.GreaterOrEqual(t, sent[1].Sub(answered), 30*time.Second,
			"the next request waits for the reset the held one was told of")
	})

	t.Run("a request that waited a minute is heard", func(t *testing.T) {
		k := newSlowKey(t, `"p";r=0;t=60`, `"p";r=0;t=30`, `"p";r=9;t=60`)
		k.get("api.example")
		// The next request waits for the reset, a minute, while the
		// transport sees many other hosts; then it goes first, and is
		// told the quota is used up for 30 s more.
		k.mu.Lock()
		k.duringSleep = k.others
		k.mu.Unlock()
		k.get("api.example")
		answered := k.clock.Now()
		k.get("api.example")
		sent := k.sent()
		require.Len(t, sent, 3)
		assert.GreaterOrEqual(t, sent[2].Sub(answered), 30*time.Second,
			"the request after it waits for the reset it was told of")
	})

	t.Run("it counts while in flight", func(t *testing.T) {
		k := newSlowKey(t, `"p";r=1;t=30`, `"p";r=0;t=30`, `"p";r=9;t=60`)
		done := k.holdFirst()
		k.get("api.example") // B: one left, which the held request may take
		answered := k.clock.Now()
		k.get("api.example") // C: must wait for the reset
		sent := k.sent()
		require.Len(t, sent, 3)
		assert.GreaterOrEqual(t, sent[2].Sub(answered), 30*time.Second,
			"the request in flight counts against the one unit left")
		k.release <- `"p";r=0;t=30`
		<-done
		v, ok := k.tr.states.m.Load("api.example")
		require.True(t, ok)
		s := v.(*state)
		s.mu.Lock()
		defer s.mu.Unlock()
		assert.Zero(t, s.inflight, "every request answered")
	})
}

// A request in flight for over an hour, the time after which a key is
// forgotten whatever it holds, still has its answer heard: the key was in
// use all that time, and the answer it brings back is fresh.
func TestSweepKeepsTheAnswerOfARequestInFlightForHours(t *testing.T) {
	k := newSlowKey(t, `"p";r=9;t=60`)
	done := k.holdOne()
	k.clock.Advance(staleAfter + time.Minute)
	k.release <- `"p";r=0;t=30` // used up for 30 s
	<-done
	answered := k.clock.Now()
	k.tr.states.sweep(answered)
	k.get("api.example")
	sent := k.sent()
	require.Len(t, sent, 2)
	assert.GreaterOrEqual(t, sent[1].Sub(answered), 30*time.Second,
		"the next request waits for the reset the held one was told of")
}
