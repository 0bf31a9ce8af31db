package echomw

import (
	"github.com/labstack/echo/v4"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/middleware"
)

// Config is the Echo-style configuration of the middleware.
type Config struct {
	// Skipper, if set and true for a request, passes it on untouched (not
	// counted, not reported), as in Echo's own middleware.
	Skipper func(c echo.Context) bool
	// Limiter decides requests (see ratewindow.Config.Limiter).
	Limiter *core.Limiter
	// Options are the shared ratewindow options.
	Options []ratewindow.Option
}

// New returns Echo middleware that limits requests with l (and the
// options). Invalid options are reported here, as an error wrapping
// core.ErrInvalidConfig that names the field.
func New(l *core.Limiter, opts ...ratewindow.Option) (echo.MiddlewareFunc, error) {
	return NewWithConfig(Config{Limiter: l, Options: opts})
}

// NewWithConfig is New with an Echo-style Config, for a Skipper.
func NewWithConfig(cfg Config) (echo.MiddlewareFunc, error) {
	f, err := middleware.FromOptions(cfg.Limiter, cfg.Options)
	if err != nil {
		return nil, err
	}
	return wrap(f, cfg.Skipper), nil
}

// Limit is the one-line form of New with the default options (peer IP
// key, IETF headers, fail open). It cannot fail; a nil limiter yields
// middleware that answers every request 503. Use New to get the error
// instead.
func Limit(l *core.Limiter) echo.MiddlewareFunc { return wrap(middleware.Default(l), nil) }

func wrap(f *middleware.Flow, skip func(echo.Context) bool) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if skip != nil && skip(c) {
				return next(c)
			}
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
