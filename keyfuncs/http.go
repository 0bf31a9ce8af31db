package keyfuncs

import (
	"context"
	"net/http"

	"github.com/ratewindow/ratewindow/internal/reqheader"
)

// HTTPRequest returns r as a Request whose Route is route (the pattern the
// router matched, "" for none). It is how to unit-test a KeyFunc, or call
// one outside the middleware:
//
//	r := httptest.NewRequest("GET", "/users/42", nil)
//	key, err := keyfuncs.Route(keyfuncs.HTTPRequest(r, "/users/{id}"))
//
// Its Host field is r.Host, as a server fills it in, never a Host entry
// of r.Header (which net/http's server never leaves there over HTTP/1,
// and which over HTTP/2 is a field the client may make up). To test a
// key by host, set r.Host, or name the host in the target
// (httptest.NewRequest("GET", "http://a.example/", nil)); a request
// built by httptest.NewRequest with a path alone is for "example.com".
func HTTPRequest(r *http.Request, route string) Request {
	return httpRequest{r: r, route: route}
}

type httpRequest struct {
	r     *http.Request
	route string
}

func (x httpRequest) Method() string                    { return x.r.Method }
func (x httpRequest) Path() string                      { return x.r.URL.Path }
func (x httpRequest) Route() string                     { return x.route }
func (x httpRequest) Header(name string) string         { return reqheader.Get(x.r, name) }
func (x httpRequest) HeaderValues(name string) []string { return reqheader.Values(x.r, name) }
func (x httpRequest) RemoteAddr() string                { return x.r.RemoteAddr }
func (x httpRequest) Context() context.Context          { return x.r.Context() }
