package ginmw

import (
	"context"

	"github.com/gin-gonic/gin"

	"github.com/ratewindow/ratewindow/internal/middleware"
)

// exchange is a *gin.Context seen as the flow's request view and response
// surface. Converting the pointer costs nothing.
type exchange gin.Context

func (x *exchange) ctx() *gin.Context                 { return (*gin.Context)(x) }
func (x *exchange) Method() string                    { return x.Request.Method }
func (x *exchange) Path() string                      { return x.Request.URL.Path }
func (x *exchange) Route() string                     { return x.ctx().FullPath() }
func (x *exchange) Header(name string) string         { return x.Request.Header.Get(name) }
func (x *exchange) HeaderValues(name string) []string { return x.Request.Header.Values(name) }
func (x *exchange) RemoteAddr() string                { return x.Request.RemoteAddr }
func (x *exchange) Context() context.Context          { return x.Request.Context() }
func (x *exchange) SetHeader(name, value string) {
	x.Writer.Header()[middleware.CanonicalHeaderKey(name)] = []string{value}
}

func (x *exchange) Send(status int, body []byte) {
	x.Writer.WriteHeader(status)
	_, _ = x.Writer.Write(body)
}
