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
// Client address: the default key is r.RemoteAddr (keyfuncs.RemoteIP).
// Behind a reverse proxy that is the proxy's, shared by every client: key
// by keyfuncs.NewClientIP, given your proxies' ranges. Middleware that
// rewrites r.RemoteAddr from request headers before this one (chi's
// middleware.RealIP, gorilla's handlers.ProxyHeaders) takes the address
// from a header any client can set, so each request could choose its own
// key: mount the limiter before it, or use NewClientIP without it.
//
// Route: with the standard ServeMux, the route the middleware reports is
// the pattern without its method ("/items/{id}" for "GET /items/{id}"),
// like the other frameworks' routes. Wrapping the handlers you register
// (as above), it is the request's Pattern, set by the mux before your
// handler runs. Wrapping the mux itself (limit(mux)), the middleware asks
// the mux which pattern it will serve the request with (mux.Handler),
// once per request and only when the route is read (a Route key func, a
// hook): a request no pattern matches (a 404 or 405 to be) is then keyed
// by keyfuncs.Route as "route:GET (unmatched)", one key per method for
// all such requests. Around any other handler (chi, gorilla, a mux
// wrapped in further middleware) the route is "", the middleware cannot
// tell a 404 from a route, and keyfuncs.Route falls back to the path: one
// key per distinct path.
//
// Mount a middleware once on a request's way. Wrapped twice around one
// handler (limit(limit(h)), or chi's r.Use(limit) and r.With(limit) on a
// route), it charges the request twice, and the client gets half the
// limit its policy states: net/http gives a request nowhere to mark that
// it has been charged but a copy of it with a new context, which would
// cost every request two allocations. (The Gin, Echo and Fiber adapters
// mark the request in the framework's context and charge it once.)
//
// For a middleware that cannot be misconfigured in one line, Limit(l) uses
// the default options.
package nethttp
