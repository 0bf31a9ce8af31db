package adaptertest

import (
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

// checkPathIsRouted mounts the middleware over every route (MountAll),
// exempting health checks by path as the adapters' docs show
// (WithSkip(r.Path() == "/healthz")), and sends paths that decode, or
// decode and resolve, to "/healthz": "/items/..%2Fhealthz" is served by
// /items/:id on net/http, Echo and Fiber (the id "../healthz") and by no
// route on Gin; "/%68ealthz" by /healthz on net/http and Gin, which route
// the decoded path, and by no route on Echo and Fiber, which route the
// path as sent. A request may be skipped only if the framework routes it
// to /healthz: the request's Path must be the path the framework routes
// by. fasthttp's normalised URI path, which decodes %2F and then resolves
// "..", gave "/healthz" for the first, and any client could spend the
// items route without limit.
func checkPathIsRouted(t *testing.T, a Adapter, client *http.Client) {
	require.NotNil(t, a.MountAll, "Adapter.MountAll")
	l, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(100)})
	require.NoError(t, err)
	env := &Env{t: t}
	base, err := a.MountAll(t, l, []ratewindow.Option{
		ratewindow.WithSkip(func(r keyfuncs.Request) bool { return r.Path() == "/healthz" }),
		env.Hook(),
	})
	require.NoError(t, err)
	closeIdleFirst(t, client)
	send := func(path string) {
		resp, err := client.Get(base + path)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	send("/healthz")
	sneaky := []string{"/items/..%2Fhealthz", "/items/%2E%2E%2Fhealthz", "/items/x/..%2F..%2Fhealthz", "/%68ealthz"}
	for _, p := range sneaky {
		send(p)
	}
	evs := env.Events()
	require.Len(t, evs, 1+len(sneaky))
	assert.Equal(t, ratewindow.Skipped, evs[0].Outcome, "%s: a health check is skipped", a.Name)
	assert.Equal(t, "/healthz", evs[0].Route, a.Name)
	for i, ev := range evs[1:] {
		if ev.Outcome == ratewindow.Skipped {
			assert.Equal(t, "/healthz", ev.Route, "%s: %s was skipped as %q, routed to %q", a.Name, sneaky[i], ev.Path, ev.Route)
		}
	}
}
