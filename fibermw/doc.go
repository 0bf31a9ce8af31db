// Package fibermw is the ratewindow middleware for Fiber (v2), as a
// fiber.Handler. Like Fiber's own middleware it takes a Next func (see
// Config) that, when it returns true, skips the middleware.
//
//	limit, err := fibermw.New(limiter)
//	...
//	app.Get("/", limit, handler)     // one route
//	api := app.Group("/api", limit)  // a group
//
// The options are those of package ratewindow, shared by every adapter.
// The route is c.Route().Path (e.g. "/items/:id").
//
// Fiber reuses a request's memory once its handler returns. Every string
// this adapter hands to key funcs, hooks and stores (header values, the
// path) is therefore a copy, so a key kept by the memory store or an Event
// kept by a hook stays intact.
package fibermw
