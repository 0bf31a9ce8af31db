// Package echomw is the ratewindow middleware for Echo, as an
// echo.MiddlewareFunc. The part of Echo's Skipper is played by
// ratewindow.WithSkip. A denied request is answered and nil returned, so
// Echo's error handler is not involved and every adapter answers alike.
//
//	limit, err := echomw.New(limiter)
//	...
//	e.GET("/", handler, limit)  // one route
//	api := e.Group("/api", limit) // a group
//
// The options are those of package ratewindow, shared by every adapter.
// The route is c.Path() (e.g. "/items/:id"). Under e.Pre(limit), where
// the middleware runs before Echo routes the request and c.Path() is
// always "", the adapter asks Echo's router for the route itself (for the
// request as it is then: a path rewrite by later Pre middleware is not
// seen). A request no route matches is keyed by keyfuncs.Route as
// "route:GET (unmatched)", one key per method for all such requests, and
// so is one that Echo answers itself because the route of its path takes
// other methods (405, or 204 to OPTIONS), though Echo names that route in
// c.Path(): the event's route is "", as on the other frameworks;
// under a group (e.Group("/api", limit)) Echo hands such requests to the
// group's catch-all 404 route, "/api/*", whose key they share.
//
// Give the middleware before what answers the request. Behind a
// middleware that has already answered (the response committed) and then
// calls next, it counts the request but can refuse nothing, and writes
// nothing into the answer. One middleware mounted twice on a request's way
// (by e.Use and on a route, or on a group and on its route) charges the
// request once, marking it with c.Set under a name of its own,
// "ratewindow.echomw.charged." and a number; two middlewares (two calls
// of New) each charge it.
//
// # Client address
//
// The default key is the TCP peer (keyfuncs.RemoteIP), not c.RealIP():
// Echo's IPExtractor is not consulted. Behind a reverse proxy every client
// would share the proxy's quota; key by keyfuncs.NewClientIP, given your
// proxies' ranges, instead.
package echomw
