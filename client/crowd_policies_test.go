package client

import (
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// finishes records, on the rig's fake clock, when each response came
// back through the transport it wraps.
type finishes struct {
	rt http.RoundTripper
	r  *rig
	mu sync.Mutex
	at []time.Time
}

func (f *finishes) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := f.rt.RoundTrip(req)
	f.mu.Lock()
	f.at = append(f.at, f.r.clock.Now())
	f.mu.Unlock()
	return resp, err
}

// Many callers at once against the project's own middleware, for every
// layout, algorithm and policy set, with a MaxWait long enough for the
// whole run: once the first response has told the quota, no request of
// cost 1 is sent into a 429, and the callers are not starved: no stretch
// with callers waiting and none answered is longer than the server's
// longest window twice over (a sliding window counter's reset), plus a
// second for the reset's rounding up and one for a Unix reset read against
// a Date cut to whole seconds.
func TestCrowdAgainstTheMiddleware(t *testing.T) {
	const callers = 24
	for lname, w := range layouts {
		for pname, ps := range policySets {
			for _, alg := range algorithms {
				t.Run(fmt.Sprintf("%s/%s/%s", lname, pname, alg), func(t *testing.T) {
					r := newRig(t, starts["mid-second"], w, using(ps, alg)...)
					r.client.Transport.(*transport).cfg.maxWait = time.Hour
					require.Equal(t, http.StatusOK, r.send(1))
					from := len(r.wires)
					start := r.clock.Now()
					f := &finishes{rt: r.client.Transport, r: r}
					c := gather(r)
					r.client = &http.Client{Transport: f}
					for i, status := range c.run(callers) {
						require.Equal(t, http.StatusOK, status, "caller %d", i)
					}
					require.Zero(t, r.refused(from), "requests sent into a 429: %s", r.wireStatuses())
					var longest time.Duration
					for _, p := range ps {
						longest = max(longest, p.Window)
					}
					bound := 2*longest + 2*time.Second
					prev := start
					for i, at := range f.at {
						require.LessOrEqual(t, at.Sub(prev), bound, "answer %d of %d came %v after the one before", i, callers, at.Sub(prev))
						prev = at
					}
					t.Logf("%d callers answered in %v", callers, prev.Sub(start))
				})
			}
		}
	}
}
