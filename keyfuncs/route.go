package keyfuncs

import (
	"net/http"

	"github.com/ratewindow/ratewindow/internal/keybound"
)

// Route keys requests by method and route pattern, e.g.
// "route:GET /users/{id}", so /users/1 and /users/2 share one quota.
//
// Requests no route matches (404s and 405s to be) share one key per
// method, "route:GET (unmatched)". No route pattern and no URL path a
// client can send spells "(unmatched)" (each holds a '/'), so a client
// that invents paths spends that one quota: it neither mints a fresh
// quota and store key per path nor spends a real route's quota. The
// adapters of this module tell unmatched requests apart under Gin, Echo
// and Fiber however the middleware is mounted, and under net/http when
// the middleware wraps a *http.ServeMux. Where the framework reports no
// pattern and cannot tell whether one matches (net/http middleware around
// another router, or a Request of your own), the URL path is used instead,
// which gives every distinct path its own key.
//
// The method is one of those HTTP defines (GET, POST, PUT, PATCH, DELETE,
// CONNECT, OPTIONS, TRACE), with HEAD keyed as GET: a ServeMux pattern
// "GET /users/{id}" and Fiber's app.Get serve HEAD through the GET handler,
// so the two share one quota. Any other method ("PROPFIND", "get", a name
// the client made up) is keyed as OTHER: "route:OTHER /users/{id}". A
// ServeMux pattern without a method hands every method to its handler, so
// a client must not be able to mint a fresh quota per invented method.
func Route(r Request) (string, error) {
	var p string
	var unmatched bool
	if m, ok := r.(routeMatcher); ok {
		p, unmatched = m.RouteMatch()
	} else {
		p = r.Route()
	}
	if p == "" {
		if unmatched {
			p = unmatchedRoute
		} else {
			p = r.Path()
		}
	}
	m := routeMethod(r.Method())
	if len(tagRoute)+len(m)+1+len(p) > maxKeyLen {
		return keybound.HashTagged(tagRoute+m+" ", p), nil // a long path, not copied
	}
	return boundKey(tagRoute+m+" "+p, maxKeyLen), nil
}

// unmatchedRoute stands in Route's keys for the pattern of a request no
// route matches. It holds no '/': every route pattern of the four
// frameworks does, and so does every URL path a client can send (or it is
// "*" or empty), so it spells neither.
const unmatchedRoute = "(unmatched)"

// routeMatcher is a Request whose adapter can tell that no route matches
// the request, as opposed to not knowing the route. One call answers both
// questions, so an adapter whose lookup is costly (Fiber's scan of its
// routes under app.Use) makes it once.
type routeMatcher interface {
	// RouteMatch returns what Route returns, and unmatched true when the
	// router found no route for the request (the pattern is then "").
	// Unmatched is false when the adapter cannot tell.
	RouteMatch() (pattern string, unmatched bool)
}

// routeMethod is the method as Route keys it: HEAD as GET, another method
// HTTP defines as is, any other as "OTHER".
func routeMethod(m string) string {
	switch m {
	case http.MethodHead:
		return http.MethodGet
	case http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodConnect, http.MethodOptions, http.MethodTrace:
		return m
	}
	return "OTHER"
}

// Constant gives every request the same key, "const:" and key: one quota
// shared by all clients, e.g. to protect a fragile backend. An empty key
// is a mistake: every request then fails with an error wrapping ErrNoKey
// and core.ErrInvalidConfig.
func Constant(key string) KeyFunc {
	if key == "" {
		return failing(misconfigured("Constant: the key is empty"))
	}
	key = boundKey(tagConst+key, maxKeyLen)
	return func(Request) (string, error) { return key, nil }
}
