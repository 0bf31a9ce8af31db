package echomw

import (
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

func wrap(f *middleware.Flow) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
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
