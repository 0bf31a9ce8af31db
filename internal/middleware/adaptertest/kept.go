package adaptertest

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

// checkKept sends requests of varying lengths over one connection, so a
// framework that reuses a connection's buffers (Fiber) reuses them, with
// the middleware over every route. What outlives a request must be its
// own: the events a hook keeps (key, route, method, path, the error of a
// key func that quotes the request), the keys the store keeps (each
// client's quota holds), and what a deny handler keeps from the request.
func checkKept(t *testing.T, a Adapter) {
	require.NotNil(t, a.MountAll, "Adapter.MountAll")
	l, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(2)})
	require.NoError(t, err)
	var (
		mu     sync.Mutex
		events []ratewindow.Event
		denied []string
	)
	key := func(r keyfuncs.Request) (string, error) {
		who := r.Header("X-Client")
		if strings.HasPrefix(who, "bad") {
			return "", fmt.Errorf("%w: client %s", keyfuncs.ErrNoKey, who)
		}
		return who, nil
	}
	base, err := a.MountAll(t, l, []ratewindow.Option{
		ratewindow.WithKeyFunc(key),
		ratewindow.WithOnDecision(func(ev ratewindow.Event) {
			mu.Lock()
			events = append(events, ev)
			mu.Unlock()
		}),
		ratewindow.WithDenyHandler(func(w ratewindow.Response, r keyfuncs.Request, _ ratewindow.Event) {
			mu.Lock()
			denied = append(denied, r.Path()+" "+r.Header("X-Client"))
			mu.Unlock()
			w.Send(http.StatusTooManyRequests, nil)
		}),
	})
	require.NoError(t, err)
	tr := &http.Transport{MaxConnsPerHost: 1}
	t.Cleanup(tr.CloseIdleConnections)
	client := &http.Client{Transport: tr, Timeout: clientTimeout}

	type sent struct{ path, who string }
	var reqs []sent
	for i := range 12 {
		who := []string{"aaaaaaaa", "bb", "bad-cccccccc"}[i%3]
		path := "/items/" + strings.Repeat(string(rune('a'+i)), 12-i)
		reqs = append(reqs, sent{path, who})
		req, err := http.NewRequest(http.MethodGet, base+path, nil)
		require.NoError(t, err)
		req.Header.Set("X-Client", who)
		resp, err := client.Do(req)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}

	mu.Lock()
	defer mu.Unlock()
	require.Len(t, events, len(reqs))
	var wantDenied []string
	for i, r := range reqs {
		ev := events[i]
		assert.Equal(t, r.path, ev.Path, "event %d", i)
		assert.Equal(t, a.ItemsRoute, ev.Route, "event %d", i)
		assert.Equal(t, http.MethodGet, ev.Method, "event %d", i)
		if strings.HasPrefix(r.who, "bad") {
			assert.Equal(t, ratewindow.UnclassifiedRejected, ev.Outcome, "event %d", i)
			assert.EqualError(t, ev.Err, keyfuncs.ErrNoKey.Error()+": client "+r.who, "event %d", i)
			continue
		}
		assert.Equal(t, r.who, ev.Key, "event %d", i)
		if i < 6 {
			assert.Equal(t, ratewindow.Allowed, ev.Outcome, "event %d: the store kept the key intact", i)
		} else {
			assert.Equal(t, ratewindow.Denied, ev.Outcome, "event %d: the store kept the key intact", i)
			wantDenied = append(wantDenied, r.path+" "+r.who)
		}
	}
	assert.Equal(t, wantDenied, denied)
}
