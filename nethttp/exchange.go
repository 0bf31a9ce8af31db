package nethttp

import (
	"context"
	"net/http"
	"strings"
	"sync"

	"github.com/ratewindow/ratewindow/internal/middleware"
)

// exchange is the request view and response surface of one net/http
// request. Exchanges are pooled, so the middleware allocates none per
// request; an exchange is valid only until the flow returns.
type exchange struct {
	w   http.ResponseWriter
	r   *http.Request
	set middleware.HeaderSetter
}

var exchanges = sync.Pool{New: func() any { return new(exchange) }}

func getExchange(w http.ResponseWriter, r *http.Request) *exchange {
	x := exchanges.Get().(*exchange)
	x.w, x.r = w, r
	return x
}

func putExchange(x *exchange) {
	x.w, x.r = nil, nil
	x.set.Reset()
	exchanges.Put(x)
}

func (x *exchange) Method() string                    { return x.r.Method }
func (x *exchange) Path() string                      { return x.r.URL.Path }
func (x *exchange) Header(name string) string         { return x.r.Header.Get(name) }
func (x *exchange) HeaderValues(name string) []string { return x.r.Header.Values(name) }
func (x *exchange) RemoteAddr() string                { return x.r.RemoteAddr }
func (x *exchange) Context() context.Context          { return x.r.Context() }
func (x *exchange) SetHeader(name, value string)      { x.set.Set(x.w.Header(), name, value) }

func (x *exchange) Send(status int, body []byte) {
	x.w.WriteHeader(status)
	_, _ = x.w.Write(body)
}

// Route is the ServeMux pattern without its method, e.g. "/items/{id}"
// for "GET /items/{id}", so it reads like the other frameworks' routes.
func (x *exchange) Route() string {
	p := x.r.Pattern
	if i := strings.IndexAny(p, " \t"); i >= 0 {
		p = strings.TrimLeft(p[i:], " \t")
	}
	return p
}
