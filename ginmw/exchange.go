package ginmw

import (
	"context"
	"sync"

	"github.com/gin-gonic/gin"

	"github.com/ratewindow/ratewindow/internal/middleware"
	"github.com/ratewindow/ratewindow/internal/reqheader"
)

// exchange is a *gin.Context seen as the flow's request view and response
// surface. Exchanges are pooled; one is valid only until the flow returns.
type exchange struct {
	c   *gin.Context
	set middleware.HeaderSetter
}

var exchanges = sync.Pool{New: func() any { return new(exchange) }}

func (x *exchange) Method() string                    { return x.c.Request.Method }
func (x *exchange) Path() string                      { return x.c.Request.URL.Path }
func (x *exchange) Route() string                     { return x.c.FullPath() }
func (x *exchange) Header(name string) string         { return reqheader.Get(x.c.Request, name) }
func (x *exchange) HeaderValues(name string) []string { return reqheader.Values(x.c.Request, name) }
func (x *exchange) RemoteAddr() string                { return x.c.Request.RemoteAddr }
func (x *exchange) Context() context.Context          { return x.c.Request.Context() }
func (x *exchange) SetHeader(name, value string)      { x.set.Set(x.c.Writer.Header(), name, value) }

// RouteMatch is Route, and whether no route matches the request. Gin runs
// middleware after routing, and for such a request (a 404 or 405)
// FullPath is "".
func (x *exchange) RouteMatch() (string, bool) {
	p := x.c.FullPath()
	return p, p == ""
}

// Send writes nothing when the response is already written: the
// middleware then runs after the handler (r.GET(path, handler, limit),
// see the package doc) and can no longer refuse the request, and Gin would
// append the body to the handler's answer.
func (x *exchange) Send(status int, body []byte) {
	if x.c.Writer.Written() {
		return
	}
	x.c.Writer.WriteHeader(status)
	_, _ = x.c.Writer.Write(body)
}
