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
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			x := getExchange(w, r)
			pass := f.Handle(x)
			putExchange(x)
			if pass {
				next.ServeHTTP(w, r)
			}
		})
	}, nil
}

// Limit is the one-line form of New with the default options: the client
// is keyed by its peer IP, IETF headers are written, store errors fail
// open. It cannot fail at construction; a nil limiter (the only possible
// mistake) yields middleware that answers every request 503, like a
// limiter that fails closed. Use New to get the error instead.
func Limit(l *core.Limiter) func(http.Handler) http.Handler {
	mw, err := New(l)
	if err != nil {
		return func(http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				x := getExchange(w, r)
				ratewindow.DefaultErrorHandler(x, x, ratewindow.Event{Outcome: ratewindow.StoreErrorRejected, Err: err})
				putExchange(x)
			})
		}
	}
	return mw
}
