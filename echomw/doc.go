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
// The route is c.Path() (e.g. "/items/:id").
package echomw
