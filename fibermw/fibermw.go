package fibermw

import (
	"github.com/gofiber/fiber/v2"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/middleware"
)

// New returns Fiber middleware that limits requests with l (and the
// options). Invalid options are reported here, as an error wrapping
// core.ErrInvalidConfig that names the field.
//
// In a Prefork child (fiber.IsChild), New refuses a limiter whose store
// keeps its counts in this process (core.Limiter.ProcessLocal: the memory
// store), and a limiter that the WithLimiterFunc function chooses for a
// request may not be one either (see the package documentation).
func New(l *core.Limiter, opts ...ratewindow.Option) (fiber.Handler, error) {
	if err := refusePerProcess(l); err != nil {
		return nil, err
	}
	if fiber.IsChild() {
		opts = append(opts[:len(opts):len(opts)], sharedOnly)
	}
	f, err := middleware.FromOptions(l, opts)
	if err != nil {
		return nil, err
	}
	return wrap(f), nil
}

// Limit is the one-line form of New with the default options (peer IP key,
// IETF headers, fail open). It cannot fail; a limiter it cannot use (nil, a
// core.Limiter that core.NewLimiter did not make, one with two policy names
// the headers would write alike, or one New refuses in a Prefork child)
// yields middleware that answers every request 503 and logs it to
// slog.Default() (Error, at most once a second). Use New to get the error
// instead.
func Limit(l *core.Limiter) fiber.Handler {
	if err := refusePerProcess(l); err != nil {
		return wrap(middleware.Unusable(err))
	}
	return wrap(middleware.Default(l))
}

// wrap makes f a fiber.Handler that charges a request once, however often
// it is mounted on the request's way: a group's and a route's middleware
// (app.Group("/api", limit) and api.Get("/x", limit, h)), or app.Use and a
// route, both run for the request, and each run would spend the client's
// quota again, halving the limit the policy states. A second run passes
// the request on; another middleware (another New or Limit) still charges.
func wrap(f *middleware.Flow) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if c.Locals(f) != nil {
			return c.Next()
		}
		c.Locals(f, true)
		if !f.Handle((*exchange)(c)) {
			return nil
		}
		return c.Next()
	}
}
