package nethttp

import (
	"net/http"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/middleware"
)

// New returns middleware that limits requests with l (and the options).
// Invalid options are reported here, as an error wrapping
// core.ErrInvalidConfig that names the field; the middleware itself never
// fails at request time except as the fail policy says.
func New(l *core.Limiter, opts ...ratewindow.Option) (func(http.Handler) http.Handler, error) {
	f, err := middleware.FromOptions(l, opts)
	if err != nil {
		return nil, err
	}
	return wrap(f), nil
}

// Limit is the one-line form of New with the default options: the client is
// keyed by its peer IP, IETF headers are written, store errors fail open.
// It cannot fail; a limiter it cannot use (nil, a core.Limiter that
// core.NewLimiter did not make, or one with two policy names the headers
// would write alike) yields middleware that answers every request 503, as a
// limiter failing closed would, and logs it to slog.Default() (Error, at
// most once a second). Use New to get the error instead.
func Limit(l *core.Limiter) func(http.Handler) http.Handler { return wrap(middleware.Default(l)) }

func wrap(f *middleware.Flow) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		mux, _ := next.(*http.ServeMux)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			x := getExchange(w, r, mux)
			pass := f.Handle(x)
			putExchange(x)
			if pass {
				next.ServeHTTP(w, r)
			}
		})
	}
}
