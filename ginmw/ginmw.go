package ginmw

import (
	"github.com/gin-gonic/gin"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/middleware"
)

// New returns Gin middleware that limits requests with l (and the
// options). Invalid options are reported here, as an error wrapping
// core.ErrInvalidConfig that names the field.
func New(l *core.Limiter, opts ...ratewindow.Option) (gin.HandlerFunc, error) {
	f, err := middleware.FromOptions(l, opts)
	if err != nil {
		return nil, err
	}
	return func(c *gin.Context) {
		if !f.Handle((*exchange)(c)) {
			c.Abort()
		}
	}, nil
}
