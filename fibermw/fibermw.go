package fibermw

import (
	"github.com/gofiber/fiber/v2"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/middleware"
)

// Config is the Fiber-style configuration of the middleware.
type Config struct {
	// Next, if set and true for a request, skips the middleware (not
	// counted, not reported), as in Fiber's own middleware.
	Next func(c *fiber.Ctx) bool
	// Limiter decides requests (see ratewindow.Config.Limiter).
	Limiter *core.Limiter
	// Options are the shared ratewindow options.
	Options []ratewindow.Option
}

// New returns Fiber middleware that limits requests with l (and the
// options). Invalid options are reported here, as an error wrapping
// core.ErrInvalidConfig that names the field.
func New(l *core.Limiter, opts ...ratewindow.Option) (fiber.Handler, error) {
	return NewWithConfig(Config{Limiter: l, Options: opts})
}

// NewWithConfig is New with a Fiber-style Config, for a Next func.
func NewWithConfig(cfg Config) (fiber.Handler, error) {
	f, err := middleware.FromOptions(cfg.Limiter, cfg.Options)
	if err != nil {
		return nil, err
	}
	return wrap(f, cfg.Next), nil
}

// Limit is the one-line form of New with the default options (peer IP
// key, IETF headers, fail open). It cannot fail; a nil limiter yields
// middleware that answers every request 503. Use New to get the error
// instead.
func Limit(l *core.Limiter) fiber.Handler { return wrap(middleware.Default(l), nil) }

func wrap(f *middleware.Flow, next func(*fiber.Ctx) bool) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if next != nil && next(c) {
			return c.Next()
		}
		if !f.Handle((*exchange)(c)) {
			return nil
		}
		return c.Next()
	}
}
