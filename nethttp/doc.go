// Package nethttp is the ratewindow middleware for net/http, in the
// standard func(http.Handler) http.Handler shape, so it also plugs into
// chi (r.Use, r.With) and gorilla/mux (r.Use).
//
//	limiter, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(100)})
//	...
//	limit, err := nethttp.New(limiter)
//	...
//	mux.Handle("GET /api/", limit(apiHandler))
//
// The options are those of package ratewindow, shared by every adapter.
//
// Route: with the standard ServeMux, wrap the handlers you register (as
// above), not the mux itself: the request's Pattern (e.g. "GET
// /items/{id}") is set by the mux before your handler runs. The route the
// middleware reports is that pattern without its method ("/items/{id}"),
// like the other frameworks' routes. Outside a ServeMux (chi, gorilla) the
// route is "", and keyfuncs.Route falls back to the path.
//
// For a middleware that cannot be misconfigured in one line, Limit(l) uses
// the default options.
package nethttp
