package echomw

import (
	"strconv"
	"sync/atomic"

	"github.com/labstack/echo/v4"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/middleware"
)

// New returns Echo middleware that limits requests with l (and the
// options). Invalid options are reported here, as an error wrapping
// core.ErrInvalidConfig that names the field.
func New(l *core.Limiter, opts ...ratewindow.Option) (echo.MiddlewareFunc, error) {
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
func Limit(l *core.Limiter) echo.MiddlewareFunc { return wrap(middleware.Default(l)) }

// mounts numbers the middlewares wrap makes, to name each one's mark.
var mounts atomic.Uint64

// wrap makes f an echo.MiddlewareFunc that charges a request once, however
// often it is mounted on the request's way: by e.Use and on a group or a
// route, or on a group and on its route, it runs twice for the request,
// and each run would spend the client's quota again, halving the limit
// the policy states. A second run passes the request on; another
// middleware (another New or Limit) still charges.
func wrap(f *middleware.Flow) echo.MiddlewareFunc {
	mark := "ratewindow.echomw.charged." + strconv.FormatUint(mounts.Add(1), 10)
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if c.Get(mark) != nil {
				return next(c)
			}
			c.Set(mark, true)
			x := getExchange(c)
			pass := f.Handle(x)
			putExchange(x)
			if !pass {
				return nil
			}
			return next(c)
		}
	}
}
