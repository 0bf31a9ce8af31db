package nethttp

import (
	"context"
	"net/http"
	"path"
	"strings"
	"sync"

	"github.com/ratewindow/ratewindow/internal/middleware"
	"github.com/ratewindow/ratewindow/internal/reqheader"
)

// exchange is the request view and response surface of one net/http
// request. Exchanges are pooled, so the middleware allocates none per
// request; an exchange is valid only until the flow returns.
type exchange struct {
	w http.ResponseWriter
	r *http.Request
	// mux is the handler the middleware wraps, when that is a ServeMux.
	mux *http.ServeMux
	set middleware.HeaderSetter
	// route is Route's answer, worked out on the first call (routed).
	route  string
	routed bool
}

var exchanges = sync.Pool{New: func() any { return new(exchange) }}

func getExchange(w http.ResponseWriter, r *http.Request, mux *http.ServeMux) *exchange {
	x := exchanges.Get().(*exchange)
	x.w, x.r, x.mux = w, r, mux
	return x
}

func putExchange(x *exchange) {
	x.w, x.r, x.mux = nil, nil, nil
	x.route, x.routed = "", false
	x.set.Reset()
	exchanges.Put(x)
}

func (x *exchange) Method() string                    { return x.r.Method }
func (x *exchange) Path() string                      { return x.r.URL.Path }
func (x *exchange) Header(name string) string         { return reqheader.Get(x.r, name) }
func (x *exchange) HeaderValues(name string) []string { return reqheader.Values(x.r, name) }
func (x *exchange) RemoteAddr() string                { return x.r.RemoteAddr }
func (x *exchange) Context() context.Context          { return x.r.Context() }
func (x *exchange) SetHeader(name, value string)      { x.set.Set(x.w.Header(), name, value) }

func (x *exchange) Send(status int, body []byte) {
	x.w.WriteHeader(status)
	_, _ = x.w.Write(body)
}

// Route is the ServeMux pattern without its method, e.g. "/items/{id}"
// for "GET /items/{id}", so it reads like the other frameworks' routes.
// Wrapped around a ServeMux, the middleware runs before the mux has set
// the request's Pattern: the pattern is then the one the mux will serve
// the request with, looked up once, on the first call.
func (x *exchange) Route() string {
	if x.routed {
		return x.route
	}
	p := x.r.Pattern
	if x.mux != nil {
		_, p = x.mux.Handler(x.r)
		if x.r.Method == http.MethodConnect && p == cleanPath(x.r.URL.Path)+"/" {
			p = "" // a redirect's path, not a pattern: see cleanPath
		}
	}
	if i := strings.IndexAny(p, " \t"); i >= 0 {
		p = strings.TrimLeft(p[i:], " \t")
	}
	x.route, x.routed = p, true
	return p
}

// RouteMatch is Route, and whether no route of the wrapped ServeMux
// matches the request (a 404 or 405 to be). Around any other handler the
// middleware cannot tell.
func (x *exchange) RouteMatch() (string, bool) {
	p := x.Route()
	return p, x.mux != nil && p == ""
}

// cleanPath is the cleaned path net/http's ServeMux redirects with. For a
// CONNECT request whose path matches a pattern only with a slash added
// ("/users/1" and "/users/{id}/"), the mux reports where it redirects
// (cleanPath of the path, and "/") in place of a pattern: taken as the
// route, that would give every path a key of its own. The request is
// answered by the redirect, as one no route matches.
func cleanPath(p string) string {
	if p == "" {
		return "/"
	}
	if p[0] != '/' {
		p = "/" + p
	}
	np := path.Clean(p)
	if p[len(p)-1] == '/' && np != "/" {
		np += "/"
	}
	return np
}
