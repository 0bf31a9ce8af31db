package httpbench

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/go-chi/httprate"
	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/limiter"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/fibermw"
	"github.com/ratewindow/ratewindow/nethttp"
)

// Limit and Window configure every limiter of the HTTP comparison: so high
// that a load generator is never denied.
const (
	Limit  = 1_000_000_000
	Window = time.Hour
)

// Server is one HTTP server of the comparison.
type Server struct {
	// Name identifies the row ("nethttp-ratewindow-sliding").
	Name string
	// Floor names the bare server this one is compared with (the same
	// framework and handler); empty for the floors themselves.
	Floor string
	// Start listens on ln and serves until the returned stop is called.
	Start func(ln net.Listener) (stop func() error, err error)
}

// algorithms are ratewindow's algorithms, by the suffix of their rows.
var algorithms = []struct {
	name string
	alg  core.Algorithm
}{
	{"fixed", core.FixedWindow},
	{"sliding", core.SlidingWindow},
	{"log", core.SlidingLog},
}

// Servers returns every server, each floor before the servers compared
// with it:
//
//   - net/http with a handler that sets Content-Type, as real handlers do:
//     bare, ratewindow's nethttp middleware for each algorithm, httprate;
//   - net/http with a handler that sets no header ("-noheader"): bare and
//     ratewindow for each algorithm;
//   - Fiber: bare, ratewindow's fibermw for each algorithm, Fiber's own
//     limiter middleware.
func Servers() []Server {
	var out []Server
	for _, h := range []struct {
		suffix  string
		handler http.Handler
	}{{"", contentTypeHandler}, {"-noheader", noHeaderHandler}} {
		floor := "nethttp-bare" + h.suffix
		out = append(out, Server{Name: floor, Start: serveNetHTTP(bareNetHTTP(h.handler))})
		for _, a := range algorithms {
			out = append(out, Server{Name: "nethttp-ratewindow-" + a.name + h.suffix, Floor: floor,
				Start: serveNetHTTP(withRatewindow(a.alg, h.handler))})
		}
		if h.suffix == "" {
			out = append(out, Server{Name: "nethttp-httprate", Floor: floor, Start: serveNetHTTP(withHttprate(h.handler))})
		}
	}
	out = append(out, Server{Name: "fiber-bare", Start: serveFiber(nil)})
	for _, a := range algorithms {
		out = append(out, Server{Name: "fiber-ratewindow-" + a.name, Floor: "fiber-bare", Start: serveFiber(fiberRatewindow(a.alg))})
	}
	return append(out, Server{Name: "fiber-limiter", Floor: "fiber-bare", Start: serveFiber(fiberLimiter)})
}

var okBody = []byte("ok\n")

// contentTypeHandler sets a header of its own, as real handlers do.
var contentTypeHandler = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write(okBody)
})

// noHeaderHandler touches no header (net/http sniffs the Content-Type).
var noHeaderHandler = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
	_, _ = w.Write(okBody)
})

// newLimiter is ratewindow on the memory store with one policy of alg.
func newLimiter(alg core.Algorithm) (*core.Limiter, error) {
	return core.NewLimiter(memory.New(), []core.Policy{core.Per(Limit, Window).Using(alg)})
}

func bareNetHTTP(h http.Handler) func() (http.Handler, error) {
	return func() (http.Handler, error) { return h, nil }
}

func withRatewindow(alg core.Algorithm, h http.Handler) func() (http.Handler, error) {
	return func() (http.Handler, error) {
		l, err := newLimiter(alg)
		if err != nil {
			return nil, err
		}
		mw, err := nethttp.New(l)
		if err != nil {
			return nil, err
		}
		return mw(h), nil
	}
}

// withHttprate keys httprate by the peer IP, as its documentation
// recommends for a server facing clients directly.
func withHttprate(h http.Handler) func() (http.Handler, error) {
	return func() (http.Handler, error) {
		key := func(r *http.Request) (string, error) {
			host, _, err := net.SplitHostPort(r.RemoteAddr)
			if err != nil {
				return "", err
			}
			return httprate.CanonicalizeIP(host), nil
		}
		return httprate.LimitBy(Limit, Window, key)(h), nil
	}
}

func serveNetHTTP(handler func() (http.Handler, error)) func(net.Listener) (func() error, error) {
	return func(ln net.Listener) (func() error, error) {
		h, err := handler()
		if err != nil {
			return nil, err
		}
		srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
		done := make(chan error, 1)
		go func() { done <- srv.Serve(ln) }()
		return func() error {
			cerr := srv.Close()
			if serr := <-done; !errors.Is(serr, http.ErrServerClosed) {
				return fmt.Errorf("httpbench: serve: %w", serr)
			}
			return cerr
		}, nil
	}
}

func fiberRatewindow(alg core.Algorithm) func() (fiber.Handler, error) {
	return func() (fiber.Handler, error) {
		l, err := newLimiter(alg)
		if err != nil {
			return nil, err
		}
		return fibermw.New(l)
	}
}

func fiberLimiter() (fiber.Handler, error) {
	return limiter.New(limiter.Config{Max: Limit, Expiration: Window}), nil
}

func serveFiber(middleware func() (fiber.Handler, error)) func(net.Listener) (func() error, error) {
	return func(ln net.Listener) (func() error, error) {
		app := fiber.New(fiber.Config{DisableStartupMessage: true})
		if middleware != nil {
			mw, err := middleware()
			if err != nil {
				return nil, err
			}
			app.Use(mw)
		}
		app.Get("/", func(c *fiber.Ctx) error { return c.Send(okBody) })
		done := make(chan error, 1)
		go func() { done <- app.Listener(ln) }()
		return func() error {
			serr := app.ShutdownWithTimeout(5 * time.Second)
			if lerr := <-done; lerr != nil {
				return fmt.Errorf("httpbench: fiber listener: %w", lerr)
			}
			return serr
		}, nil
	}
}

// NamedHandler is one net/http handler of the comparison, for in-process
// benchmarks.
type NamedHandler struct {
	Name string
	New  func() (http.Handler, error)
}

// NetHTTPHandlers returns the net/http handlers the servers use, for the
// handler that sets Content-Type (noHeader false) or the one that sets no
// header: the bare floor, ratewindow's middleware for each algorithm and,
// with Content-Type, httprate; named as the report expects (a "bare"
// prefix marks a floor, "ratewindow-" marks ours).
func NetHTTPHandlers(noHeader bool) []NamedHandler {
	h := http.Handler(contentTypeHandler)
	if noHeader {
		h = noHeaderHandler
	}
	out := []NamedHandler{{Name: "bare-nethttp", New: bareNetHTTP(h)}}
	for _, a := range algorithms {
		out = append(out, NamedHandler{Name: "ratewindow-nethttp-" + a.name, New: withRatewindow(a.alg, h)})
	}
	if !noHeader {
		out = append(out, NamedHandler{Name: "httprate", New: withHttprate(h)})
	}
	return out
}
