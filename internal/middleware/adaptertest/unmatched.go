package adaptertest

import (
	"io"
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

// checkUnmatched mounts the middleware over every route (MountAll), keyed
// by keyfuncs.Route, and sends requests no route serves: unknown paths, a
// method the route does not take (a 404 or a 405, as the framework
// answers it) and OPTIONS. Each shares the one unmatched key of its
// method, and its event has the route "", on every framework: a client
// inventing paths or methods mints no key per request and spends no real
// route's quota, and a metrics label does not name a route that served
// nothing.
func checkUnmatched(t *testing.T, a Adapter, client *http.Client) {
	require.NotNil(t, a.MountAll, "Adapter.MountAll")
	l, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(100)})
	require.NoError(t, err)
	env := &Env{t: t}
	base, err := a.MountAll(t, l, []ratewindow.Option{ratewindow.WithKeyFunc(keyfuncs.Route), env.Hook()})
	require.NoError(t, err)
	closeIdleFirst(t, client)
	send := func(method, path string) int {
		req, err := http.NewRequest(method, base+path, nil)
		require.NoError(t, err)
		resp, err := client.Do(req)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}

	type want struct{ key, route string }
	var wants []want
	items := want{"route:GET " + a.ItemsRoute, a.ItemsRoute}
	assert.Equal(t, http.StatusOK, send(http.MethodGet, "/items/1"))
	wants = append(wants, items)
	for i := range 3 {
		assert.Equal(t, http.StatusNotFound, send(http.MethodGet, "/nope-"+strconv.Itoa(i)))
		wants = append(wants, want{"route:GET (unmatched)", ""})
	}
	for _, m := range []string{http.MethodPost, http.MethodDelete, http.MethodOptions} {
		status := send(m, "/items/1")
		assert.Contains(t, []int{http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusNoContent}, status, "%s /items/1", m)
		wants = append(wants, want{"route:" + m + " (unmatched)", ""})
	}
	assert.Equal(t, http.StatusOK, send(http.MethodGet, "/items/2"))
	wants = append(wants, items)

	var got []want
	for _, ev := range env.Events() {
		assert.Equal(t, ratewindow.Allowed, ev.Outcome)
		got = append(got, want{ev.Key, ev.Route})
	}
	assert.Equal(t, wants, got, a.Name)
}
