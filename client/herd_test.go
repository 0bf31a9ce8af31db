package client

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/headers"
)

// crowd runs many callers through a rig at once on its fake clock: a wait
// blocks until every caller is waiting or done, and the clock then moves
// to the end of the earliest wait.
type crowd struct {
	r        *rig
	mu       sync.Mutex
	waits    []*waiter
	finished int
}

type waiter struct {
	until time.Time
	wake  chan struct{}
}

// gather replaces the rig's sleep with the crowd's.
func gather(r *rig) *crowd {
	c := &crowd{r: r}
	r.client.Transport.(*transport).cfg.sleep = c.sleep
	return c
}

func (c *crowd) sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	w := &waiter{until: c.r.clock.Now().Add(d), wake: make(chan struct{})}
	c.waits = append(c.waits, w)
	c.mu.Unlock()
	select {
	case <-w.wake:
		return nil
	case <-ctx.Done():
		c.mu.Lock()
		defer c.mu.Unlock()
		for i, x := range c.waits {
			if x == w {
				c.waits = append(c.waits[:i], c.waits[i+1:]...)
				break
			}
		}
		return ctx.Err()
	}
}

// run sends n requests of cost 1 at once and returns the statuses the
// callers saw.
func (c *crowd) run(n int) []int {
	t := c.r.t
	statuses := make([]int, n)
	for i := range n {
		go func() {
			statuses[i] = c.get()
			c.mu.Lock()
			c.finished++
			c.mu.Unlock()
		}()
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		c.mu.Lock()
		if c.finished == n {
			c.mu.Unlock()
			return statuses
		}
		if c.finished+len(c.waits) < n {
			// Some caller is still on its way: let it get somewhere.
			c.mu.Unlock()
			require.True(t, time.Now().Before(deadline), "the callers never settled")
			time.Sleep(time.Millisecond)
			continue
		}
		next := c.waits[0].until
		for _, w := range c.waits {
			if w.until.Before(next) {
				next = w.until
			}
		}
		if next.After(c.r.clock.Now()) {
			c.r.clock.Set(next)
		}
		kept := c.waits[:0]
		for _, w := range c.waits {
			if w.until.After(next) {
				kept = append(kept, w)
				continue
			}
			close(w.wake)
		}
		c.waits = kept
		c.mu.Unlock()
	}
}

// get sends one request of cost 1 and returns the status the caller saw
// (0 for an error).
func (c *crowd) get() int {
	req, err := http.NewRequest("GET", c.r.url, nil)
	if err != nil {
		return 0
	}
	resp, err := c.r.client.Do(req)
	if err != nil {
		return 0
	}
	_ = resp.Body.Close()
	return resp.StatusCode
}

// refused counts the 429s the server sent from the i-th response on.
func (r *rig) refused(from int) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, w := range r.wires[from:] {
		if w.status == http.StatusTooManyRequests {
			n++
		}
	}
	return n
}

// Many callers waiting on a used-up quota do not all go out at its reset:
// the reset brings back fewer units than there are callers, and the rest
// would be refused. One goes first, and the others follow what its
// response says.
func TestNoHerdAfterTheReset(t *testing.T) {
	for _, alg := range algorithms {
		t.Run(alg.String(), func(t *testing.T) {
			r := newRig(t, starts["on a second"], headers.Writer{}, core.PerSecond(5).Using(alg))
			for range 5 {
				require.Equal(t, http.StatusOK, r.send(1))
			}
			from := len(r.wires)
			for i, status := range gather(r).run(20) {
				require.Equal(t, http.StatusOK, status, "caller %d", i)
			}
			require.Zero(t, r.refused(from), "requests sent into a 429 after the reset: %s", r.wireStatuses())
		})
	}
}

// A fresh key knows nothing: a first burst goes out at once, as most hosts
// announce no limit and holding it back would cost every first burst a
// round trip. What overflows is refused once, and retried after its
// Retry-After (the clock has moved by then); the retries then do not all
// go out together into a second round of 429s.
func TestFirstBurstIsRefusedOnce(t *testing.T) {
	for _, alg := range algorithms {
		t.Run(alg.String(), func(t *testing.T) {
			r := newRig(t, starts["on a second"], headers.Writer{}, core.PerSecond(5).Using(alg))
			for i, status := range gather(r).run(20) {
				require.Equal(t, http.StatusOK, status, "caller %d", i)
			}
			r.mu.Lock()
			defer r.mu.Unlock()
			for i, w := range r.wires {
				if w.at.After(starts["on a second"]) {
					require.Equal(t, http.StatusOK, w.status, "response %d, sent at %v, after the first burst", i, w.at)
				}
			}
		})
	}
}
