package echomw

import (
	"context"
	"sync"

	"github.com/labstack/echo/v4"

	"github.com/ratewindow/ratewindow/internal/middleware"
	"github.com/ratewindow/ratewindow/internal/reqheader"
)

// exchange is an echo.Context seen as the flow's request view and response
// surface. Exchanges are pooled; one is valid only until the flow returns.
type exchange struct {
	c   echo.Context
	set middleware.HeaderSetter
	// found is the route Echo's router finds for the request, and
	// unmatched whether it found none, looked up at most once per request
	// (when looked is set), and only when c.Path() is "".
	found     string
	unmatched bool
	looked    bool
}

var exchanges = sync.Pool{New: func() any { return new(exchange) }}

func getExchange(c echo.Context) *exchange {
	x := exchanges.Get().(*exchange)
	x.c = c
	return x
}

func putExchange(x *exchange) {
	x.c = nil
	x.found, x.unmatched, x.looked = "", false, false
	x.set.Reset()
	exchanges.Put(x)
}

func (x *exchange) Method() string                    { return x.c.Request().Method }
func (x *exchange) Header(name string) string         { return reqheader.Get(x.c.Request(), name) }
func (x *exchange) HeaderValues(name string) []string { return reqheader.Values(x.c.Request(), name) }
func (x *exchange) RemoteAddr() string                { return x.c.Request().RemoteAddr }
func (x *exchange) Context() context.Context          { return x.c.Request().Context() }
func (x *exchange) SetHeader(name, value string)      { x.set.Set(x.c.Response().Header(), name, value) }

// Path is the path Echo routes the request by, echo.GetPath: the path as
// sent (URL.RawPath) when it holds an escape that decoding would change,
// else URL.Path. Decoded, "/%68ealthz", which Echo routes as sent (to no
// route, or to a catch-all "/*"), would read "/healthz", and a WithSkip or
// key func by path would take it for a health check.
func (x *exchange) Path() string { return echo.GetPath(x.c.Request()) }

// Route is c.Path(), or, when that is "", the route Echo's router finds
// for the request: under e.Pre the middleware runs before Echo routes the
// request, and c.Path() is "" for every request.
func (x *exchange) Route() string {
	p, _ := x.RouteMatch()
	return p
}

// RouteMatch is Route, and whether no route matches the request (a 404 or
// 405 to be): its c.Path() is "", and Echo's router finds no route for it
// either; or the router found a route for the path but not for the
// method (see refused).
func (x *exchange) RouteMatch() (string, bool) {
	if p := x.c.Path(); p != "" {
		if refused(x.c) {
			return "", true
		}
		return p, false
	}
	if x.c.Echo() == nil {
		return "", false
	}
	x.lookup()
	return x.found, x.unmatched
}

// refused reports whether Echo's router, routing c, found a route for
// its path but none for its method: it then answers 405 (or 204 to an
// OPTIONS request) itself, and sets c.Path() to the route's pattern, where
// the other frameworks report no route. The router marks those requests,
// and those alone, with the methods the path takes, under
// echo.ContextKeyHeaderAllow. Such a request is unmatched: keyed by the
// route, a client could spend a GET route's quota with HEAD requests Echo
// refuses, and the metrics would name a route that served nothing.
func refused(c echo.Context) bool { return c.Get(echo.ContextKeyHeaderAllow) != nil }

// lookup routes the request as Echo does, on a context of its own taken
// from Echo's pool, so c is left as it is.
func (x *exchange) lookup() {
	if x.looked {
		return
	}
	x.looked = true
	e := x.c.Echo()
	if e == nil {
		return
	}
	r := x.c.Request()
	router := e.Router()
	if hr, ok := e.Routers()[r.Host]; ok {
		router = hr // the router of a virtual host (e.Host)
	}
	scratch := e.AcquireContext()
	scratch.Reset(r, nil)
	router.Find(r.Method, echo.GetPath(r), scratch)
	x.found = scratch.Path()
	if refused(scratch) {
		x.found = ""
	}
	x.unmatched = x.found == ""
	scratch.Reset(nil, nil) // the pool keeps no request
	e.ReleaseContext(scratch)
}

// Send writes nothing when the response is already committed (by a
// middleware that answered and then called next): the middleware can no
// longer refuse the request, and Echo would append the body to the
// answer.
func (x *exchange) Send(status int, body []byte) {
	r := x.c.Response()
	if r.Committed {
		return
	}
	r.WriteHeader(status)
	_, _ = r.Write(body)
}
