package client

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/headers"
)

// gates holds requests in the base of a rig: a request with X-Hold: name
// is held at gate name (on its way to the server, or with a name starting
// "back", on its way back) until the gate opens, after telling held.
type gates struct {
	mu    sync.Mutex
	gates map[string]chan struct{}
	held  chan struct{}
	wg    sync.WaitGroup
}

func (g *gates) gate(name string) chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	c, ok := g.gates[name]
	if !ok {
		c = make(chan struct{})
		g.gates[name] = c
	}
	return c
}

func (g *gates) open(name string) { close(g.gate(name)) }

func holdingRig(t *testing.T, policies ...core.Policy) (*rig, *gates) {
	r := newRig(t, starts["on a second"], headers.Writer{}, policies...)
	g := &gates{gates: map[string]chan struct{}{}, held: make(chan struct{}, 16)}
	tr := r.client.Transport.(*transport)
	base := tr.base
	tr.base = rtFunc(func(req *http.Request) (*http.Response, error) {
		name := req.Header.Get("X-Hold")
		if name == "" {
			return base.RoundTrip(req)
		}
		if strings.HasPrefix(name, "back") {
			resp, err := base.RoundTrip(req)
			g.held <- struct{}{}
			<-g.gate(name)
			return resp, err
		}
		g.held <- struct{}{}
		<-g.gate(name)
		return base.RoundTrip(req)
	})
	return r, g
}

// sendHeld sends a request held at gate name, and returns once it is held.
func (r *rig) sendHeld(g *gates, name string) {
	req, err := http.NewRequest("GET", r.url, nil)
	require.NoError(r.t, err)
	req.Header.Set("X-Hold", name)
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		resp, err := r.client.Do(req)
		if err == nil {
			_ = resp.Body.Close()
		}
	}()
	<-g.held
}

// wireStatuses lists the statuses sent back by the server, in order.
func (r *rig) wireStatuses() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	for _, w := range r.wires {
		b.WriteString(strings.ReplaceAll(http.StatusText(w.status), " ", ""))
		b.WriteByte(' ')
	}
	return b.String()
}

// A request the server has not answered yet is still counted when a
// response to another one, which the server answered first, comes back.
func TestInFlightCountedAfterAResponse(t *testing.T) {
	r, g := holdingRig(t, core.Per(3, 10*time.Second).Using(core.FixedWindow))
	require.Equal(t, http.StatusOK, r.send(1)) // r=2
	r.sendHeld(g, "b")                         // B: takes a unit, held on its way
	require.Equal(t, http.StatusOK, r.send(1)) // A: r=1, but B is on its way
	require.Equal(t, http.StatusOK, r.send(1)) // C: must wait for the reset
	g.open("b")
	g.wg.Wait()
	s := r.wireStatuses()
	require.NotContains(t, s, "TooMany", "a request was sent into a 429: %s", s)
}

// Two responses that cross on the way back: the older one, read last,
// does not raise the count the newer one left.
func TestCrossedResponsesOnlyLowerTheCount(t *testing.T) {
	r, g := holdingRig(t, core.Per(4, 10*time.Second).Using(core.FixedWindow))
	// D holds for C, the probe, whose answer the test releases only once D
	// is done: D goes when C is overdue.
	r.client.Transport.(*transport).cfg.probeWait = 100 * time.Millisecond
	require.Equal(t, http.StatusOK, r.send(1)) // r=3
	r.sendHeld(g, "back-a")                    // A: answered r=2, held on its way back
	require.Equal(t, http.StatusOK, r.send(1)) // B: r=1, read first
	g.open("back-a")                           // A's r=2 is read last
	g.wg.Wait()
	// One unit is left, but the transport cannot tell whether B's r=1
	// counts A: C and D, sent together, must not both go out now.
	r.sendHeld(g, "c")
	require.Equal(t, http.StatusOK, r.send(1)) // D
	g.open("c")
	g.wg.Wait()
	s := r.wireStatuses()
	require.NotContains(t, s, "TooMany", "a request was sent into a 429: %s", s)
}
