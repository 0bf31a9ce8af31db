package client_test

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// A server that answers every request "spent, resets now" (r=0;t=0) gets
// the requests one at a time, each the probe after the last one's reset:
// none is refused, none waits for long, and there is no busy loop
// (each wait is a timer, the reset's millisecond).
func TestSpentAndResetNowGoesOneAtATime(t *testing.T) {
	var inside, most, calls atomic.Int64
	url := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inside.Add(1)
		defer inside.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		calls.Add(1)
		time.Sleep(2 * time.Millisecond)
		w.Header().Set("RateLimit", `"p";r=0;t=0`)
	}))
	c := newClient(t)
	do(t, c, request(t, context.Background(), "GET", url, nil)) // the key is learnt
	most.Store(0)
	start := time.Now()
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp := do(t, c, request(t, context.Background(), "GET", url, nil))
			assert.Equal(t, http.StatusOK, resp.StatusCode)
		}()
	}
	wg.Wait()
	assert.Equal(t, int64(21), calls.Load())
	assert.Equal(t, int64(1), most.Load(), "one request at a time")
	assert.Less(t, time.Since(start), 10*time.Second, "20 round trips and 20 milliseconds of waits")
}
