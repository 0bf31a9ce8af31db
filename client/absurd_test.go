package client

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A reset far beyond MaxWait on an allowed response (a Unix time sent as
// a delta, say) is treated as an absurd Retry-After is: waited for by no
// request, and not remembered. Remembered, it would outlast every later
// answer that crossed it on the way back (those only ever lower the
// count), so under concurrent use the key would go unpaced, every request
// sent at once into what the server said next.
func TestAbsurdResetIsForgotten(t *testing.T) {
	entered := make(chan struct{}, 2)
	release := map[string]chan struct{}{"a": make(chan struct{}), "b": make(chan struct{})}
	fields := map[string]string{"a": `"p";r=0;t=1732460000`, "b": `"p";r=0;t=1`, "c": `"p";r=5;t=1`}
	tr, err := New(rtFunc(func(req *http.Request) (*http.Response, error) {
		name := req.Header.Get("X-Name")
		if gate, ok := release[name]; ok {
			entered <- struct{}{}
			<-gate
		}
		h := http.Header{}
		h.Set("RateLimit", fields[name])
		return &http.Response{StatusCode: http.StatusOK, Header: h, Body: http.NoBody, Request: req}, nil
	}), WithJitter(0))
	require.NoError(t, err)
	waits := fakeTime(tr)
	send := func(name string) {
		req, err := http.NewRequest("GET", "http://api.example/", nil)
		require.NoError(t, err)
		req.Header.Set("X-Name", name)
		resp, err := tr.RoundTrip(req)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode)
	}
	var wg sync.WaitGroup
	done := map[string]chan struct{}{"a": make(chan struct{}), "b": make(chan struct{})}
	for _, name := range []string{"a", "b"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(done[name])
			send(name)
		}()
	}
	<-entered
	<-entered // both in flight
	close(release["a"])
	<-done["a"] // read first: the absurd reset
	close(release["b"])
	<-done["b"] // read last, crossed: nothing left for a second
	wg.Wait()
	send("c")
	require.Equal(t, []time.Duration{time.Second + resetMargin}, *waits, "the third request waits for the reset the second was told")
}
