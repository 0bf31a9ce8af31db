package adaptertest

import (
	"net/http"
	"testing"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
)

// Mount starts a server for the adapter under test on a 127.0.0.1
// listener (closed by t.Cleanup) and returns its base URL, such as
// "http://127.0.0.1:41234". The server has three routes:
//
//	GET /           limited (the middleware built from l and opts), answers 200 "ok\n"
//	GET /items/:id  limited by the same middleware instance, 200 "ok\n"
//	GET /healthz    not limited, 200 "ok\n"
//
// If building the middleware fails, Mount returns the error and starts
// nothing.
type Mount func(t *testing.T, l *core.Limiter, opts []ratewindow.Option) (string, error)

// Adapter describes the adapter under test.
type Adapter struct {
	// Name is used in failure messages.
	Name string
	// Mount starts a server (see Mount).
	Mount Mount
	// MountLimit is Mount for the adapter's one-line form, Limit(l),
	// with /items/:id and /healthz as in Mount.
	MountLimit func(t *testing.T, l *core.Limiter) string
	// MountAll is Mount with the middleware over every route, as an app
	// mounts it once for all: around the ServeMux, r.Use, e.Use,
	// app.Use. Every route is limited, /healthz too.
	MountAll Mount
	// ItemsRoute is the route the framework reports for /items/:id, e.g.
	// "/items/{id}" on a ServeMux or "/items/:id" on Gin.
	ItemsRoute string
}

// Run runs every scenario against a, then the checks that are not steps
// of a table: invalid configuration, concurrency, the one-line form,
// half-closed connections, requests no route serves, paths spelt to pass
// for another, what outlives a request.
func Run(t *testing.T, a Adapter) {
	t.Helper()
	client := &http.Client{Timeout: clientTimeout}
	for _, sc := range Scenarios() {
		t.Run(sc.Name, func(t *testing.T) { runScenario(t, a, client, sc) })
	}
	t.Run("invalid configuration", func(t *testing.T) { checkInvalidConfig(t, a) })
	t.Run("concurrent clients never exceed the limit", func(t *testing.T) { checkConcurrency(t, a, client) })
	t.Run("the one-line form", func(t *testing.T) { checkLimit(t, a, client) })
	t.Run("half-closing clients get the limit", func(t *testing.T) { checkHalfClose(t, a) })
	t.Run("requests no route serves share one key per method", func(t *testing.T) { checkUnmatched(t, a, client) })
	t.Run("a path is the one the framework routes", func(t *testing.T) { checkPathIsRouted(t, a, client) })
	t.Run("what outlives a request is its own", func(t *testing.T) { checkKept(t, a) })
}
