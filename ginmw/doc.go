// Package ginmw is the ratewindow middleware for Gin, as a gin.HandlerFunc.
// A denied request is answered and the chain aborted (c.Abort), so later
// handlers do not run.
//
//	limit, err := ginmw.New(limiter, ratewindow.WithKeyFunc(keyfuncs.RemoteIP))
//	...
//	r.GET("/", limit, handler)        // one route
//	api := r.Group("/api", limit)     // a group
//
// The options are those of package ratewindow, shared by every adapter.
//
// Give the middleware before what it guards. Gin runs a route's handlers
// in the order given, so r.GET(path, handler, limit) (Echo's order) runs
// the middleware once the handler has answered: it counts the request but
// can refuse nothing, and writes nothing into the answer. And r.Use
// applies to the routes registered after it only: routes registered
// before r.Use(limit) are not limited. One middleware mounted twice on a
// request's way (by r.Use and on a group, or on a group and on its route)
// charges the request once, marking it in c.Keys under a key that is not
// a string (code that ranges over c.Keys must not assume string keys);
// two middlewares (two calls of New) each charge it.
//
// The route is c.FullPath() (e.g. "/items/:id"). A request no route
// matches, under r.Use(limit), is keyed by keyfuncs.Route as
// "route:GET (unmatched)", one key per method for all such requests. The
// path the key funcs and WithSkip see is c.Request.URL.Path, decoded, the
// path Gin routes by default; an engine with UseRawPath or UseEscapedPath
// routes the path as sent ("/%68ealthz" is then no "/healthz"), which the
// adapter cannot see: exempt routes by r.Route() there, not r.Path().
//
// Gin answers a path that differs from a route's by a trailing slash
// ("/users/1/" for "/users/:id") with a redirect of its own
// (RedirectTrailingSlash, on by default, and RedirectFixedPath), before
// any middleware runs: the limiter never sees such a request, and it
// spends no quota. The request the client is redirected to is counted.
//
// # Client address
//
// The default key is the TCP peer (keyfuncs.RemoteIP), not c.ClientIP():
// Gin's SetTrustedProxies and RemoteIPHeaders are not read. Behind a
// reverse proxy every client would share the proxy's quota; key by
// keyfuncs.NewClientIP, given your proxies' ranges, instead.
package ginmw
