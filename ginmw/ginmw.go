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
	return wrap(f), nil
}

// Limit is the one-line form of New with the default options (peer IP
// key, IETF headers, fail open). It cannot fail; a limiter it cannot use
// (nil, a core.Limiter that core.NewLimiter did not make, or one with two
// policy names the headers would write alike) yields middleware that
// answers every request 503 and logs it to
// slog.Default() (Error, at most once a second). Use New to get the error
// instead.
func Limit(l *core.Limiter) gin.HandlerFunc { return wrap(middleware.Default(l)) }

// wrap makes f a gin.HandlerFunc that charges a request once, however
// often it is mounted on the request's way: by r.Use and on a group
// (r.Use(limit); r.Group("/api", limit)), or on a group and on its route,
// it runs twice for the request, and each run would spend the client's
// quota again, halving the limit the policy states. A second run passes
// the request on; another middleware (another New or Limit) still charges.
func wrap(f *middleware.Flow) gin.HandlerFunc {
	return func(c *gin.Context) {
		if _, seen := c.Get(f); seen {
			return
		}
		c.Set(f, true)
		x := exchanges.Get().(*exchange)
		x.c = c
		pass := f.Handle(x)
		*x = exchange{} // forget the request and the header block
		exchanges.Put(x)
		if !pass {
			c.Abort()
		}
	}
}
