package client

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hostile answers each request at random, in every dialect, with
// refusals, Retry-After, stale fields, failures and nonsense, from a
// generator seeded per request so the run is the same each time.
func hostile(req *http.Request) (*http.Response, error) {
	if err := req.Context().Err(); err != nil {
		return nil, err
	}
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		_ = req.Body.Close()
	}
	seed, _ := strconv.ParseUint(req.Header.Get("X-Seed"), 10, 64)
	rng := rand.New(rand.NewPCG(seed, 7))
	if rng.IntN(20) == 0 {
		return nil, errors.New("connection reset")
	}
	h := http.Header{}
	n := func() string { return strconv.Itoa(rng.IntN(4)) }
	switch rng.IntN(6) {
	case 0:
		h.Set("RateLimit", `"a";r=`+n()+`;t=`+n()+`, "b";r=`+n())
	case 1:
		h.Set("RateLimit", "limit=9, remaining="+n()+", reset="+n())
	case 2:
		h.Set("RateLimit", "limit=9, reset="+n())
	case 3:
		h.Set("X-RateLimit-Remaining", n())
		h.Set("X-RateLimit-Reset", strconv.Itoa(1565000000+rng.IntN(4)))
		h.Set("Date", "Mon, 05 Aug 2019 10:13:00 GMT")
	case 4:
		h.Set("RateLimit-Remaining", n())
		h.Set("RateLimit-Reset", "99999999999")
	}
	if rng.IntN(4) == 0 {
		h.Set("Retry-After", n())
	}
	if rng.IntN(10) == 0 {
		h.Set("Age", "3")
	}
	status := []int{200, 200, 200, 429, 503}[rng.IntN(5)]
	return &http.Response{StatusCode: status, Header: h, Body: io.NopCloser(strings.NewReader("x")), Request: req}, nil
}

// Many goroutines share one transport over many keys, against a server
// that answers at random, some requests with bodies, some cancelled: no
// race, every request ends, and then no key is left with a request counted
// in flight, a hold, or a probe open.
func TestManyGoroutinesManyKeys(t *testing.T) {
	tr, err := New(rtFunc(hostile), WithMaxWait(5*time.Second), WithMaxRetries(2))
	require.NoError(t, err)
	var mu sync.Mutex
	at := now
	cfg := &tr.(*transport).cfg
	cfg.now = func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return at
	}
	cfg.sleep = func(ctx context.Context, d time.Duration) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		mu.Lock()
		at = at.Add(d)
		mu.Unlock()
		return nil
	}
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 150 {
				seed := uint64(g*1000 + i)
				ctx, cancel := context.WithCancel(context.Background())
				if seed%11 == 0 {
					cancel()
				}
				var body io.Reader
				if seed%3 == 0 {
					body = strings.NewReader("payload")
				}
				req, err := http.NewRequestWithContext(ctx, "PUT", "http://host-"+strconv.Itoa(int(seed%37))+".example/", body)
				require.NoError(t, err)
				req.Header.Set("X-Seed", strconv.FormatUint(seed, 10))
				resp, err := tr.RoundTrip(req)
				if err == nil {
					_ = resp.Body.Close()
				}
				cancel()
			}
		}()
	}
	wg.Wait()
	states := &tr.(*transport).states
	n := 0
	states.m.Range(func(k, v any) bool {
		n++
		s := v.(*state)
		s.mu.Lock()
		defer s.mu.Unlock()
		assert.Zero(t, s.inflight, "%v: in flight", k)
		assert.Zero(t, s.taken, "%v: let go and never sent", k)
		assert.Zero(t, s.holders, "%v: held", k)
		assert.Nil(t, s.probe, "%v: a probe left open", k)
		return true
	})
	assert.Equal(t, 37, n)
	assert.Equal(t, int64(n), states.size.Load())
}
